package pages

import (
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/engine/settle"
)

// eventView is one event as the pages show it: its fields, its span
// (marked with its byte offsets) and the link to its line.
type eventView struct {
	SHA256, Label              string
	Line, Start, End           int
	Subject, Predicate, Object string
	Amount, Currency, Time     string
	Modality, Polarity, Status string
	Role                       string
	Tag                        string // settlement evidence: counted (a payment in the sum) or cited
	Span                       template.HTML
	Href                       string
}

func eventOf(sha, label string, e *engine.Event, text []byte) eventView {
	start, end := int(e.ByteStart), int(e.ByteEnd)
	amount := "-"
	if e.AmountPresent {
		amount = e.Amount.String()
	}
	return eventView{SHA256: sha, Label: label, Line: int(e.LineStart), Start: start, End: end,
		Subject: e.Subject, Predicate: e.Predicate, Object: e.Object, Amount: amount, Currency: e.Currency, Time: e.Time,
		Modality: e.Modality, Polarity: e.Polarity, Status: e.Status,
		Span: marked(text, start, []span{{start, end}}), Href: docURL(sha, int(e.LineStart), []span{{start, end}})}
}

type homeData struct {
	Stats *commands.Stats
	Docs  []commands.Doc
	More  bool
}

func (h *handler) home(w http.ResponseWriter, r *http.Request) {
	var d homeData
	if !h.archive(w, "home", func(a *db.Archive) error {
		var err error
		if d.Stats, err = commands.StatsOf(a, commands.StatsIn{}); err != nil {
			return err
		}
		page, err := commands.DocsList(a, commands.DocsIn{Limit: 10})
		if err != nil {
			return err
		}
		d.Docs, d.More = page.Documents, page.More
		return nil
	}) {
		return
	}
	h.render(w, "home", page{Title: "Chronicle", Data: d})
}

type docsData struct {
	Docs  []commands.Doc
	Sort  string
	Limit int
	Next  string
	Sorts []sortLink
}

type sortLink struct {
	Name, Href string
	Current    bool
}

func (h *handler) docs(w http.ResponseWriter, r *http.Request) {
	sortBy := r.URL.Query().Get("sort")
	if sortBy != "" && !slices.Contains(commands.DocsSorts, sortBy) {
		h.fail(w, http.StatusBadRequest, badRequest{commands.DocsSortError(sortBy[:min(len(sortBy), 40)])})
		return
	}
	p := paramsOf(r)
	limit, after := p.number("limit", DocsPage, MaxDocsPage), p.text("after")
	if h.failed(w, p) {
		return
	}
	d := docsData{Sort: sortBy, Limit: limit}
	for _, s := range commands.DocsSorts {
		d.Sorts = append(d.Sorts, sortLink{Name: s, Href: "/docs?sort=" + s, Current: s == sortBy || (sortBy == "" && s == "import")})
	}
	if !h.archive(w, "docs", func(a *db.Archive) error {
		page, err := commands.DocsList(a, commands.DocsIn{Limit: limit, After: after, Sort: sortBy})
		if err != nil {
			return err
		}
		d.Docs = page.Documents
		if page.More && len(d.Docs) > 0 {
			q := url.Values{"after": {d.Docs[len(d.Docs)-1].SHA256}, "limit": {strconv.Itoa(limit)}}
			if sortBy != "" {
				q.Set("sort", sortBy)
			}
			d.Next = "/docs?" + q.Encode()
		}
		return nil
	}) {
		return
	}
	h.render(w, "docs", page{Title: "Documents", Data: d})
}

type lineView struct {
	Number, Start, End int
	HTML               template.HTML
	Marked             bool
}

type docData struct {
	Doc           commands.Doc
	Label         string
	Origins       []originView // what the text was derived from, nearest first
	Lines         []lineView
	From, To      int
	Prev, Next    string
	Events        []eventView
	EventsOnPage  int
	Receipts      []receiptView
	Highlights    int
	HighlightsOff int
}

// originView is one step from a derived text up to the file ingested:
// the original (its kind and digest), the part of it, and the tool.
type originView struct {
	Kind, SHA256, Part, Tool string
}

// parseHighlights reads a document link's hl parameter ("START-END,...").
func parseHighlights(v string) ([]span, error) {
	if v == "" {
		return nil, nil
	}
	parts := strings.Split(v, ",")
	if len(parts) > maxHighlights {
		return nil, badf("parameter hl holds %d spans; at most %d", len(parts), maxHighlights)
	}
	var out []span
	for _, p := range parts {
		a, b, ok := strings.Cut(p, "-")
		s, err1 := strconv.Atoi(a)
		e, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || s < 0 || e <= s {
			return nil, badf("parameter hl: want START-END byte offsets with START < END, got %.40q", p)
		}
		out = append(out, span{s, e})
	}
	return merge(out), nil
}

// onRunes keeps the spans whose ends fall on character boundaries of the
// line (a link's spans are the engine's; one made by hand may not be).
func onRunes(spans []span, text []byte, start int) []span {
	var out []span
	boundary := func(off int) bool {
		i := off - start
		return i <= 0 || i >= len(text) || utf8.RuneStart(text[i])
	}
	for _, s := range spans {
		if s.End <= start || s.Start >= start+len(text) {
			continue
		}
		if boundary(s.Start) && boundary(s.End) {
			out = append(out, s)
		}
	}
	return out
}

func (h *handler) doc(w http.ResponseWriter, r *http.Request) {
	sha := r.PathValue("sha")
	if !isDigest(sha) {
		h.fail(w, http.StatusBadRequest, badf("%.80q is not a document's SHA-256 (64 lower-case hex digits)", sha))
		return
	}
	p := paramsOf(r)
	from := p.number("from", 1, maxLine)
	to := p.number("to", from+PageLines-1, maxLine)
	if h.failed(w, p) {
		return
	}
	if to < from {
		h.fail(w, http.StatusBadRequest, badf("line range %d-%d: want from <= to", from, to))
		return
	}
	to = min(to, from+PageLines-1)
	hl, err := parseHighlights(r.URL.Query().Get("hl"))
	if err != nil {
		h.fail(w, http.StatusBadRequest, err)
		return
	}
	d := docData{From: from, To: to}
	if !h.archive(w, "show", func(a *db.Archive) error {
		more := false
		doc, err := commands.Show(a, commands.ShowIn{Document: sha, From: from, To: to + 1}, func(l db.Line) error {
			if l.Number > to {
				more = true
				return nil
			}
			line := commands.LineOf(l)
			spans := onRunes(hl, []byte(line.Text), line.ByteStart)
			d.Highlights += len(spans)
			d.Lines = append(d.Lines, lineView{Number: line.Line, Start: line.ByteStart, End: line.ByteEnd,
				HTML: marked([]byte(line.Text), line.ByteStart, spans), Marked: len(spans) > 0})
			return nil
		})
		if err != nil {
			return err
		}
		if doc.SHA256.String() != sha {
			return db.ErrUnknownDoc // a name that looks like a digest
		}
		d.Doc, d.Label = commands.DocOf(doc), doc.Label()
		chain, err := a.DerivedFrom(doc.SHA256)
		if err != nil {
			return err
		}
		for _, dv := range chain {
			d.Origins = append(d.Origins, originView{Kind: dv.InputKind, SHA256: dv.Input.String(), Part: dv.Part,
				Tool: dv.Tool.Name + " " + dv.Tool.Version})
		}
		if len(d.Lines) > 0 {
			d.To = d.Lines[len(d.Lines)-1].Number
		}
		if from > 1 {
			d.Prev = "/doc/" + sha + "?from=" + strconv.Itoa(max(1, from-PageLines))
		}
		if more {
			d.Next = "/doc/" + sha + "?from=" + strconv.Itoa(d.To+1)
		}
		if doc.EventCount > 0 {
			s, err := a.LoadEvidence(doc)
			if err != nil {
				return err
			}
			for i := range s.Events {
				e := &s.Events[i]
				if int(e.LineStart) < from || int(e.LineStart) > d.To {
					continue
				}
				d.Events = append(d.Events, eventOf(sha, d.Label, e, s.Source[e.ByteStart:e.ByteEnd]))
			}
		}
		labels := func(db.Digest) string { return d.Label }
		_, err = commands.Receipts(a, commands.ReceiptsIn{Document: &sha}, func(it commands.ReceiptItem) error {
			d.Receipts = append(d.Receipts, receiptOf(it, labels))
			return nil
		})
		return err
	}) {
		return
	}
	h.render(w, "doc", page{Title: d.Label, Data: d})
}

type findGroup struct {
	SHA256, Label string
	Names         []string
	Total         int
	Lines         []hitLine
	More          int
	Href          string
}

type hitLine struct {
	Number, Start, End, Score int
	HTML                      template.HTML
	Href                      string
}

type findData struct {
	Terms, Doc string
	Groups     []findGroup
	Page       int
	Prev, Next string
}

func groupOf(q *find.Query, doc *db.Document, res *find.Result) findGroup {
	sha := doc.SHA256.String()
	g := findGroup{SHA256: sha, Label: doc.Label(), Names: doc.Names, Total: res.TotalMatchingLines,
		More: res.TotalMatchingLines - len(res.Matches), Href: docURL(sha, 0, nil)}
	for _, m := range res.Matches {
		spans := termSpans(q, []byte(m.Text), int(m.ByteStart))
		g.Lines = append(g.Lines, hitLine{Number: m.Line, Start: int(m.ByteStart), End: int(m.ByteEnd), Score: m.MatchedTerms,
			HTML: marked([]byte(m.Text), int(m.ByteStart), spans), Href: docURL(sha, m.Line, spans)})
	}
	return g
}

func (h *handler) find(w http.ResponseWriter, r *http.Request) {
	p := paramsOf(r)
	terms, doc, pageNo := p.text("terms"), p.text("doc"), p.number("page", 1, db.MaxLimit/FindPage)
	if h.failed(w, p) {
		return
	}
	if terms == "" {
		h.render(w, "find", page{Title: "Find", Data: findData{Doc: doc, Page: 1}})
		return
	}
	in := commands.FindIn{Terms: terms, Document: doc, Limit: min(pageNo*FindPage+1, db.MaxLimit)}
	if _, _, err := in.Check(doc != "", false); err != nil {
		h.fail(w, http.StatusBadRequest, badRequest{err})
		return
	}
	q, err := find.NewQuery(terms)
	if err != nil {
		h.fail(w, http.StatusBadRequest, badRequest{err})
		return
	}
	d := findData{Terms: terms, Doc: doc, Page: pageNo}
	if !h.archive(w, "find", func(a *db.Archive) error {
		res, err := commands.Find(a, in, false)
		if err != nil {
			return err
		}
		if res.Answer != nil {
			if res.Answer.Find.Status == find.StatusMatches {
				d.Groups = append(d.Groups, groupOf(q, res.Answer.Doc, res.Answer.Find))
			}
			return nil
		}
		first := (pageNo - 1) * FindPage
		for i := first; i < len(res.Hits) && i < first+FindPage; i++ {
			d.Groups = append(d.Groups, groupOf(q, res.Hits[i].Doc, res.Hits[i].Result))
		}
		base := url.Values{"terms": {terms}}
		if pageNo > 1 {
			base.Set("page", strconv.Itoa(pageNo-1))
			d.Prev = "/find?" + base.Encode()
		}
		if len(res.Hits) > first+FindPage && pageNo*FindPage < db.MaxLimit {
			base.Set("page", strconv.Itoa(pageNo+1))
			d.Next = "/find?" + base.Encode()
		}
		return nil
	}) {
		return
	}
	h.render(w, "find", page{Title: "Find " + terms, Terms: terms, Data: d})
}

type answerData struct {
	Question  string
	Status    string
	Kind      string // "settlement" or "claim"
	Debt      *settle.Debt
	Settled   string
	Documents []docLink
	Evidence  []eventView
	Scope     string
	Note      string
}

type docLink struct{ SHA256, Label, Href string }

// settlementOf is the view of a settlement; label names an evidence's
// document.
func settlementOf(s *settle.Settlement, label func(sha [32]byte) (string, string)) answerData {
	d := answerData{Question: s.Question, Status: string(s.Status), Kind: "settlement", Debt: s.Debt, Settled: s.Settled.String()}
	for i := range s.Evidence {
		ev := &s.Evidence[i]
		doc := ev.Document
		if doc == ([32]byte{}) {
			doc = s.Document
		}
		sha, name := label(doc)
		v := eventOf(sha, name, &ev.Event, []byte(ev.Text))
		v.Tag = "cited"
		if ev.Counted {
			v.Tag = "counted"
		}
		d.Evidence = append(d.Evidence, v)
	}
	switch {
	case s.Ambiguous:
		d.Note = "several different debts match the question"
	case s.Contradicted:
		d.Note = "an established opposite record contradicts the debt, a link or a payment"
	case s.Overflow:
		d.Note = "the sum overflowed"
	case s.Related:
		d.Note = "a payment is pending, unconfirmed, amountless or in another currency"
	case s.Duplicate:
		d.Note = "a payment repeats an earlier one"
	}
	return d
}

// answerOf is the view of a settlement or literal claim answered in one
// document.
func answerOf(ans *db.DocAnswer) answerData {
	var d answerData
	sha, label := ans.Doc.SHA256.String(), ans.Doc.Label()
	labelOf := func([32]byte) (string, string) { return sha, label }
	if ans.Settlement != nil {
		d = settlementOf(ans.Settlement, labelOf)
	} else {
		c := ans.Claim
		d = answerData{Question: c.Question, Status: string(c.Status), Kind: "claim"}
		for i := range c.Evidence {
			d.Evidence = append(d.Evidence, eventOf(sha, label, &c.Evidence[i].Event, []byte(c.Evidence[i].Text)))
		}
	}
	d.Documents = []docLink{{SHA256: sha, Label: label, Href: docURL(sha, 0, nil)}}
	d.Scope = "in " + label
	return d
}

func (h *handler) query(w http.ResponseWriter, r *http.Request) {
	var d answerData
	p := paramsOf(r)
	doc, question := p.text("doc"), p.text("question")
	if doc == "" || question == "" {
		p.refuse(errors.New("query wants a document (doc) and a question"))
	}
	in := commands.QueryIn{Document: doc, Question: question}
	p.refuse(in.Check())
	if h.failed(w, p) {
		return
	}
	if !h.archive(w, "query", func(a *db.Archive) error {
		ans, err := commands.Query(a, in)
		if err != nil {
			return err
		}
		d = answerOf(ans)
		return nil
	}) {
		return
	}
	h.render(w, "answer", page{Title: d.Status + " " + question, Question: question, Data: d})
}

func (h *handler) settle(w http.ResponseWriter, r *http.Request) {
	p := paramsOf(r)
	question := p.text("question")
	if question == "" {
		p.refuse(errors.New("settle wants a question"))
	}
	docs := p.q["doc"]
	if len(docs) > 64 {
		p.refuse(fmt.Errorf("at most 64 documents (doc), got %d", len(docs)))
	}
	var chosen []string
	for _, doc := range docs {
		if len(doc) > maxParam || !engine.ValidTextString(doc) {
			p.refuse(fmt.Errorf("parameter doc is not valid UTF-8 text of at most %d bytes", maxParam))
		} else if doc != "" {
			chosen = append(chosen, doc)
		}
	}
	in := commands.SettleIn{Question: question, Documents: chosen}
	p.refuse(in.Check())
	if h.failed(w, p) {
		return
	}
	var d answerData
	if !h.archive(w, "settle", func(a *db.Archive) error {
		res, err := commands.Settle(a, in, false)
		if err == nil {
			d = crossView(res.Settlement)
		}
		return err
	}) {
		return
	}
	h.render(w, "answer", page{Title: d.Status + " " + question, Question: question, Data: d})
}

// crossView is the view of a settlement across documents.
func crossView(c *db.CrossSettlement) answerData {
	d := settlementOf(c.Result, func(digest [32]byte) (string, string) {
		sha := db.Digest(digest).String()
		if doc := c.Doc(digest); doc != nil {
			return sha, doc.Label()
		}
		return sha, sha[:12]
	})
	for _, doc := range c.Participants() {
		sha := doc.SHA256.String()
		d.Documents = append(d.Documents, docLink{SHA256: sha, Label: doc.Label(), Href: docURL(sha, 0, nil)})
	}
	if c.Chosen != nil {
		d.Scope = "across " + commands.Plural(len(c.Chosen), "chosen document")
	} else {
		d.Scope = "across documents #1.." + strconv.FormatUint(c.UpTo, 10)
	}
	return d
}

type entityData struct {
	Name       string
	Total      int         // events naming the entity
	Events     []eventView // this page's
	From       int         // the number of the page's first event
	Prev, Next string
	Debts      []debtView
}

// debtView is a debt the entity takes part in: the settlement question
// that settles it, and the documents whose events it cites.
type debtView struct {
	Borrower, Lender string
	Question, Href   string
	Documents        []docLink
}

func (h *handler) entity(w http.ResponseWriter, r *http.Request) {
	p := paramsOf(r)
	name := p.text("name")
	pageNo := p.number("page", 1, maxLine)
	in := commands.EntityIn{Name: name}
	p.refuse(in.Check(false))
	if h.failed(w, p) {
		return
	}
	d := entityData{Name: name}
	if !h.archive(w, "entity", func(a *db.Archive) error {
		first := (pageNo - 1) * EntityPage
		res, err := commands.EntityPage(a, in, first, EntityPage)
		if err != nil {
			return err
		}
		// The debts come from every event; the page shows EntityPage
		// of them, and reads only their documents' records (the
		// template and the records were most of the time of a name
		// with thousands).
		d.Total = len(res.Events)
		first = min(first, len(res.Events))
		d.From = first + 1
		q := url.Values{"name": {name}}
		if pageNo > 1 {
			q.Set("page", strconv.Itoa(pageNo-1))
			d.Prev = "/entity?" + q.Encode()
		}
		if first+len(res.Page) < len(res.Events) {
			q.Set("page", strconv.Itoa(pageNo+1))
			d.Next = "/entity?" + q.Encode()
		}
		for i := range res.Page {
			hit := &res.Page[i]
			v := eventOf(hit.Doc.SHA256.String(), hit.Doc.Label(), &hit.Event, hit.Text)
			v.Role = "object"
			if hit.Role == 1 {
				v.Role = "subject"
			}
			d.Events = append(d.Events, v)
		}
		debts, err := commands.DebtsOf(a, res.Events)
		if err != nil {
			return err
		}
		for _, debt := range debts {
			v := debtView{Borrower: debt.Borrower, Lender: debt.Lender, Question: debt.Question,
				Href: "/settle?" + url.Values{"question": {debt.Question}}.Encode()}
			for _, doc := range debt.Documents {
				sha := doc.SHA256.String()
				v.Documents = append(v.Documents, docLink{SHA256: sha, Label: doc.Label(), Href: docURL(sha, 0, nil)})
			}
			d.Debts = append(d.Debts, v)
		}
		return nil
	}) {
		return
	}
	h.render(w, "entity", page{Title: "Entity " + name, Data: d})
}

type verifyData struct {
	Receipt                   string
	Verdict, Problem, Warning string
}

func (h *handler) verify(w http.ResponseWriter, r *http.Request) {
	p := paramsOf(r)
	rec := p.text("receipt")
	if h.failed(w, p) {
		return
	}
	d := verifyData{Receipt: rec}
	if rec == "" {
		h.render(w, "verify", page{Title: "Verify a receipt", Data: d})
		return
	}
	var v commands.Verified
	if !h.archive(w, "verify", func(a *db.Archive) error {
		v = commands.Verify(func() (*db.Archive, error) { return a, nil }, commands.VerifyIn{Receipt: rec})
		return nil
	}) {
		return
	}
	d.Verdict, d.Warning = v.Outcome.String(), v.Warning
	if v.Why != nil {
		d.Problem = v.Why.Error()
	}
	h.render(w, "verify", page{Title: d.Verdict, Data: d})
}
