package pages_test

import (
	"context"
	"github.com/casper-chronicle/chronicle/internal/testarchive"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/repl/web/pages"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// csp is the server's Content-Security-Policy; the browser test serves
// the pages under it, so that it proves they work with it.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'"

// chromium is the system's Chromium (Debian's chromium; .ci/run installs
// it). Without it the browser test fails under CI and is skipped
// elsewhere.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	const msg = "the browser test needs Chromium, and no chromium is on PATH (apt-get install -y chromium; .ci/run installs it)"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// markJS lists every highlight of the page: its document (from the
// nearest data-document-sha256), its byte range and its text.
const markJS = `Array.from(document.querySelectorAll("mark")).map(m => ({
	doc: m.closest("[data-document-sha256]").dataset.documentSha256,
	start: Number(m.dataset.byteStart), end: Number(m.dataset.byteEnd), text: m.textContent}))`

type browserMark struct {
	Doc   string `json:"doc"`
	Start int    `json:"start"`
	End   int    `json:"end"`
	Text  string `json:"text"`
}

func TestBrowser(t *testing.T) {
	exe := chromium(t)
	f := newFixture(t)
	handler := pages.New(pages.Options{Archive: f.archive, Write: f.write, CSRF: func(*http.Request) string { return "token" }})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", csp)
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.WindowSize(1100, 900), chromedp.Flag("lang", "en-US"))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	defer cancelTimeout()

	// Every console error and log entry of the page's security (a CSP
	// violation is one) is kept: the pages must raise none.
	var mu sync.Mutex
	var problems []string
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() || m.Source == "security" ||
				strings.Contains(m.Text, "Content Security Policy") {
				mu.Lock()
				problems = append(problems, m.String())
				mu.Unlock()
			}
		}
	}()

	checkMarks := func(least int) []browserMark {
		t.Helper()
		marks, err := chromedp.Run(ctx, chromedp.Evaluate[[]browserMark](markJS))
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(marks), least)
		for _, m := range marks {
			src := f.source(t, m.Doc)
			require.Equal(t, string(src[m.Start:m.End]), m.Text, "mark [%d,%d) of %s", m.Start, m.End, m.Doc)
		}
		return marks
	}
	eval := func(js string) []string {
		t.Helper()
		out, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](js))
		require.NoError(t, err)
		return out
	}
	text := func(sel string) string {
		t.Helper()
		out, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		require.NoError(t, err)
		return out
	}
	location := func() string {
		t.Helper()
		out, err := chromedp.Run(ctx, chromedp.Location())
		require.NoError(t, err)
		return out
	}
	shots := os.Getenv("CHRONICLE_SCREENSHOTS") == "1"
	screenshot := func(name string) {
		t.Helper()
		if !shots {
			return
		}
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		require.NoError(t, err)
		const dir = "testdata/screenshots"
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(dir+"/"+name, png, 0o644))
	}

	// Home, then a search typed into the find box, as a user would.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")))
	require.Equal(t, "6", text("#total-documents"))
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS("#find-terms"), "Layla Omar"),
		chromedp.Submit(chromedp.CSS("#find-terms")),
		chromedp.WaitVisible(chromedp.CSS("section.group")),
	))
	require.Contains(t, location(), "/find?terms=Layla+Omar")
	marks := checkMarks(4)
	require.Equal(t, "Layla", marks[0].Text)
	screenshot("find.png")

	// A hit opens its document at its line, with the same highlights.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("section.group a.ln")),
		chromedp.WaitVisible(chromedp.CSS("ol.source")),
		// The fragment's line becomes :target once the browser has
		// scrolled to it, which may come after the list is visible.
		chromedp.Poll[chromedp.Void](`document.querySelectorAll(".srcline:target").length > 0`, chromedp.WithPollingTimeout(5*time.Second)),
	))
	loc := location()
	require.Contains(t, loc, "#L")
	require.Equal(t, []string{loc[strings.LastIndex(loc, "#")+1:]}, eval(`Array.from(document.querySelectorAll(".srcline:target")).map(e => e.id)`))
	checkMarks(1)

	// The settlement box: the PARTIAL story of the samples.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS("#settle-question"), "Did Alice repay Bob?"),
		chromedp.Submit(chromedp.CSS("#settle-question")),
		chromedp.WaitVisible(chromedp.CSS("#status")),
	))
	require.Equal(t, "PARTIAL", text("#status"))
	require.Equal(t, []string{alice + ":2", alice + ":4", alice + ":6"}, eval(`Array.from(document.querySelectorAll("li.cited .cite a")).map(a => a.textContent)`))
	require.Equal(t, []string{alice + ":5"}, eval(`Array.from(document.querySelectorAll("li.counted .cite a")).map(a => a.textContent)`))
	require.NotEqual(t, []string{"rgba(0, 0, 0, 0)"}, eval(`[getComputedStyle(document.querySelector("#status")).backgroundColor]`),
		"the style sheet applies under the CSP")
	checkMarks(4)
	screenshot("settle.png")

	// A claims file chosen in the check form, checked and kept: each row
	// coloured by its outcome, beside the lines of its answer.
	claimsFile := filepath.Join(testarchive.Root(t), "testdata", "claims", "agent-answer.jsonl")
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/claims"),
		chromedp.Click(chromedp.CSS(`a[href="/claims/check"]`)),
		chromedp.WaitVisible(chromedp.CSS("#claims-file")),
		chromedp.SetUploadFiles(chromedp.CSS("#claims-file"), []string{claimsFile}),
		chromedp.Click(chromedp.CSS("#check-claims")),
		chromedp.WaitVisible(chromedp.CSS("tr.outcome-contradicted")),
	))
	require.Contains(t, location(), "/claims?file=")
	checkMarks(5)
	require.Contains(t, text("tr.outcome-contradicted + tr .row-evidence"), "counted")
	colours := eval(`["supported", "contradicted", "unverified"].map(o => getComputedStyle(document.querySelector("tr.outcome-" + o)).backgroundColor)`)
	require.Len(t, colours, 3)
	require.NotEqual(t, colours[0], colours[1], "supported and contradicted rows differ")
	require.NotEqual(t, colours[1], colours[2], "contradicted and unverified rows differ")
	// Tall enough to show the contradicted row, in red, with its lines.
	if shots {
		require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1100, 1500)))
		screenshot("claims.png")
		require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1100, 900)))
	}

	// The settlement across the stories: SUPPORTED, every cited line a
	// link to it.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/settle?question=Did+Layla+repay+Omar%3F")))
	require.Equal(t, "SUPPORTED", text("#status"))
	require.Equal(t, []string{bank + ":4", bank + ":6"}, eval(`Array.from(document.querySelectorAll("li.counted .cite a")).map(a => a.textContent)`))
	checkMarks(4)

	// An entity: its events (read from the entity index, the page's
	// records only), the debt it takes part in, and that debt's
	// settlement one click away.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/entity?name=Layla")))
	require.Contains(t, text("#event-count"), "events naming it")
	checkMarks(2)
	require.Equal(t, []string{"Did Layla repay Omar?"}, eval(`Array.from(document.querySelectorAll("#debts a.settle")).map(a => a.textContent)`))
	require.Equal(t, []string{loan, bank}, eval(`Array.from(document.querySelectorAll("#debts li a:not(.settle)")).map(a => a.textContent)`),
		"the documents the settlement cites")
	screenshot("entity.png")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#debts a.settle"))))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#status"))))
	require.Equal(t, "SUPPORTED", text("#status"))

	// Arabic lines read right to left, English ones left to right.
	const directions = `Array.from(document.querySelectorAll(".srcline .text")).map(e => getComputedStyle(e).direction)`
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/doc/"+f.sha(t, ahmed))))
	dirs := eval(directions)
	require.NotEmpty(t, dirs)
	for _, d := range dirs {
		require.Equal(t, "rtl", d)
	}
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/doc/"+f.sha(t, alice)+"#L2-L4")))
	require.Equal(t, []string{"ltr", "ltr", "ltr", "ltr", "ltr", "ltr", "ltr"}, eval(directions))
	require.Equal(t, []string{"L2", "L3", "L4"}, eval(`Array.from(document.querySelectorAll(".srcline.target")).map(e => e.id)`),
		"the script highlights a range of lines")

	// By keyboard: the first Tab reaches the skip link, shown when
	// focused; Enter follows it.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.KeyEvent("\t")))
	require.Equal(t, []string{"Skip to content", "16px"}, eval(`[document.activeElement.textContent, getComputedStyle(document.activeElement).left]`))
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent("\r")))
	require.True(t, strings.HasSuffix(location(), "/#main"), location())

	// Printed, a page drops its navigation, forms and footer.
	const shown = `["header", "footer", "main"].map(s => getComputedStyle(document.querySelector(s)).display)`
	require.Equal(t, []string{"flex", "block", "block"}, eval(shown))
	_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"})
	require.NoError(t, err)
	require.Equal(t, []string{"none", "none", "block"}, eval(shown))

	mu.Lock()
	defer mu.Unlock()
	require.Empty(t, problems, "console errors or CSP violations")
}
