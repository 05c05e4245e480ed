package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/publish"
	"github.com/azabudai/ctool/internal/sites"
	"github.com/azabudai/ctool/internal/textout"
	"github.com/urfave/cli/v2"
)

func newPublishCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "publish",
		Usage:     "upload the build to an object store and make it the one servers following the store serve",
		UsageText: "ctool publish [--db PATH] [--format text|json] URL [--profiles-to URL]",
		Description: "URL is s3://bucket/prefix (credentials, region and endpoint the standard AWS way: AWS_ACCESS_KEY_ID,\n" +
			"AWS_PROFILE, AWS_REGION, ~/.aws; AWS_ENDPOINT_URL for an S3-compatible store, addressed path-style) or\n" +
			"file:///dir (a directory that exists, such as a shared mount). The build goes to builds/<sha256>.duckdb,\n" +
			"named by its content, with its manifest builds/<sha256>.json (build id, schema version, sha256, size,\n" +
			"rows per dataset, place, build time, ctool version, read from the build); then latest is moved to it,\n" +
			"last and only if no other publish moved it meanwhile, so a follower ('ctool mcp --follow URL', 'ctool\n" +
			"console --follow URL') never sees half a build. Publishing the same build again is safe.\n\n" +
			"The profiles file is personal data and is never published with the build: --profiles-to names a\n" +
			"store of its own (not inside URL, nor URL inside it), which is marked as a profiles store so that no\n" +
			"server ever follows it. A build of another schema version than this ctool's is refused: every follower\n" +
			"would refuse it." +
			exitStatus("published: latest names the build", fault.KindConflict, fault.KindStale, fault.KindUsage,
				fault.KindNoDatabase, fault.KindUnavailable),
		Flags: []cli.Flag{
			dbFlag(),
			formatFlag("output", "text", "text", "json"),
			&cli.StringFlag{Name: "profiles-to", Usage: "also publish the build's profiles file, to the store at `URL` (apart from the builds')"},
		},
		Action: func(c *cli.Context) error {
			format, err := choiceValue(c, "format")
			if err != nil {
				return err
			}
			switch {
			case c.NArg() == 0:
				return usageError("publish needs the store's URL: s3://bucket/prefix or file:///dir").WithHint("ctool publish --help")
			case c.NArg() > 1:
				return usageError("publish takes one URL, got %q", c.Args().Slice()).WithHint("ctool publish --help")
			case c.IsSet("profiles-to") && c.String("profiles-to") == "":
				return usageError("--profiles-to is empty")
			}
			return runPublish(c.Context, e.stdout, format, e.dbPath(c), c.Args().First(), c.String("profiles-to"))
		},
	}
}

// published is what `ctool publish --format json` prints.
type published struct {
	Store    string            `json:"store"`
	Manifest publish.Manifest  `json:"manifest"`
	Profiles *publishedProfile `json:"profiles"` // null when not published
}

type publishedProfile struct {
	Store    string           `json:"store"`
	Manifest publish.Manifest `json:"manifest"`
}

func runPublish(ctx context.Context, w io.Writer, format, db, url, profilesTo string) error {
	for _, u := range []struct{ flag, url string }{{"", url}, {"--profiles-to: ", profilesTo}} {
		if u.url == "" {
			continue
		}
		if _, err := publish.ParseURL(u.url); err != nil {
			return usageError("%s%v", u.flag, err).WithHint("name a store: s3://bucket/prefix or file:///absolute/dir")
		}
	}
	local, err := sites.ReadLocal(ctx, db, version)
	if err != nil {
		return err
	}
	out := published{}
	if profilesTo != "" {
		if local.ProfilesErr != nil {
			return fault.Errorf(fault.KindNoDatabase, "--profiles-to: the build's profiles file: %v", local.ProfilesErr).WithHint("ctool ingest --db " + db)
		}
		st, err := publish.Open(ctx, profilesTo)
		if err != nil {
			return storeError(profilesTo, err)
		}
		m, err := publish.PublishProfiles(ctx, st, url, local.ProfilesPath, local.Profiles)
		if err != nil {
			return storeError(profilesTo, err)
		}
		out.Profiles = &publishedProfile{Store: st.URL(), Manifest: m}
	}
	st, err := publish.Open(ctx, url)
	if err != nil {
		return storeError(url, err)
	}
	m, err := publish.Publish(ctx, st, db, local.Manifest)
	if err != nil {
		return storeError(url, err)
	}
	out.Store, out.Manifest = st.URL(), m
	if format == "json" {
		return textout.JSONFor(w, out)
	}
	var counts []string
	for name, n := range m.RowCounts {
		counts = append(counts, fmt.Sprintf("%s %d", name, n))
	}
	sort.Strings(counts)
	fmt.Fprintf(w, "published build %s (schema %d; rows: %s) to %s\n", m.BuildID, m.SchemaVersion, strings.Join(counts, ", "), out.Store)
	fmt.Fprintf(w, "  %s, %s\n  latest names it\n", publish.BuildKey(m.SHA256), sizeText(m.Size))
	if out.Profiles != nil {
		fmt.Fprintf(w, "profiles: %s in %s\n", publish.BuildKey(out.Profiles.Manifest.SHA256), out.Profiles.Store)
	} else {
		fmt.Fprintln(w, "profiles: not published (personal data; --profiles-to URL puts them in a store of their own)")
	}
	return nil
}

// storeError gives a failed publish its kind: a lost race, a mix of builds and profiles, or a store
// that did not answer.
func storeError(url string, err error) error {
	var fe *fault.Error
	switch {
	case errors.As(err, &fe):
		return fe
	case errors.Is(err, publish.ErrLostRace):
		return &fault.Error{Kind: fault.KindConflict, Message: err.Error(), Err: err,
			Hint: "another publish made its build current first; run the same ctool publish again to make this one current after it"}
	case errors.Is(err, publish.ErrProfilesStore):
		return &fault.Error{Kind: fault.KindUsage, Message: err.Error(), Err: err,
			Hint: "give --profiles-to a store apart from the builds' (another bucket, or a prefix outside URL's)"}
	}
	hint := "check the URL, this machine's network, and the AWS credentials and region (AWS_PROFILE, AWS_ACCESS_KEY_ID, AWS_REGION; AWS_ENDPOINT_URL for a store other than AWS)"
	if strings.HasPrefix(url, "file:") {
		hint = "the directory must exist and be writable: mkdir -p it, or mount the share"
	}
	return &fault.Error{Kind: fault.KindUnavailable, Message: err.Error(), Hint: hint, Err: err}
}

// sizeText is a file's size for people: bytes, or MiB with one decimal.
func sizeText(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
