package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const docPrefix = "chronicle://doc/"

// addResources lists each document of the archive (as the server starts)
// as chronicle://doc/<sha256> and serves any document by that template:
// its text with line numbers, as `show DOC` prints it.
func (s *Server) addResources() {
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{Name: "document", URITemplate: docPrefix + "{sha256}", MIMEType: "text/plain",
		Description: "A document of the archive by its SHA-256: its lines, each as `N  text` (the line number right-aligned in 6 columns, two spaces, the line)."}, s.readDoc)
	_ = s.guard("mcp", false, func(a *db.Archive) error {
		docs, err := a.Docs()
		if err != nil {
			return err
		}
		for _, d := range docs {
			s.mcp.AddResource(&mcp.Resource{URI: docURI(d), Name: d.Label(), MIMEType: "text/plain", Size: d.SourceSize,
				Description: fmt.Sprintf("%s: %s, %s, with line numbers", d.Label(), plural(d.SourceSize, "byte"), plural(d.EventCount, "event"))}, s.readDoc)
		}
		return nil
	})
}

func (s *Server) readDoc(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	digest, ok := strings.CutPrefix(uri, docPrefix)
	if !ok || len(digest) != 64 || strings.Trim(digest, "0123456789abcdef") != "" {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	var text strings.Builder
	err := s.guard("show", false, func(a *db.Archive) error {
		// the lines `show` reads (commands.Show), as its text view lays
		// them out
		_, err := commands.Show(a, commands.ShowIn{Document: digest}, func(l db.Line) error {
			fmt.Fprintf(&text, "%6d  ", l.Number)
			for _, p := range l.Text {
				text.Write(p)
			}
			text.WriteByte('\n')
			return nil
		})
		return err
	})
	if err != nil {
		if errors.Is(err, db.ErrUnknownDoc) {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: text.String()}}}, nil
}
