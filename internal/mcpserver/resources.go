package mcpserver

import (
	"context"
	"strings"

	"github.com/azabudai/ctool/schema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// schemaTemplate is the resource template of the tools' full descriptions: the tool descriptions are
// kept lean, and an agent reads the rest (every column's shape, all the examples) when it needs it.
const schemaTemplate = "ctool://schema/{dataset}"

// addSchemaResources registers one resource per tool, ctool://schema/<dataset>, holding that tool's
// full description with the label values of vocab, and the template that names them all.
func addSchemaResources(srv *mcp.Server, vocab schema.Vocabulary) {
	read := func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		d := datasetOfURI(uri)
		if d == nil {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{URI: uri, MIMEType: "text/plain", Text: schema.FullHelp(d, vocab)},
		}}, nil
	}
	for _, d := range append(schema.Public(), schema.Profiles) {
		srv.AddResource(&mcp.Resource{
			URI:         schema.ResourceURI(d),
			Name:        d.Name,
			Title:       d.Tool + " の全説明",
			Description: "全カラム（JSON列の形）、ビュー、ラベル値、全検索例",
			MIMEType:    "text/plain",
		}, read)
	}
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: schemaTemplate,
		Name:        "schema",
		Title:       "ツールの全説明",
		Description: "dataset は events, stores, products, profiles",
		MIMEType:    "text/plain",
	}, read)
}

// datasetOfURI is the dataset a schema resource names, nil for any other URI.
func datasetOfURI(uri string) *schema.Dataset {
	name, ok := strings.CutPrefix(uri, "ctool://schema/")
	if !ok {
		return nil
	}
	for _, d := range schema.All() {
		if d.Name == name {
			return d
		}
	}
	return nil
}
