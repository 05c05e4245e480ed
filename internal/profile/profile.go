// Package profile owns get_user_profile: exactly one user's profile by id, never a listing or a
// search, read from the profiles file of the current build and from the source file the operator
// chose with NARRATIVE_DATA_FILE.
package profile

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/schema"
)

// defaultSource is the profile source used when NARRATIVE_DATA_FILE is not set.
const defaultSource = "narrative_data.csv"

// Messages the design documents specify for get_user_profile.
const (
	MsgNoProfileID = "profile_idを指定してください"
	MsgNotFound    = "ユーザーが見つかりません: "
	MsgOneID       = "profile_idは1つだけ指定してください（プロファイルの一覧・検索はできません）"
	// HintCheckID is an unknown id's hint to an agent: what it can do, which is ask the visitor and
	// go on without the profile, as the system prompt of agents.md says.
	HintCheckID = "IDが正しいかユーザーに確認してもらい、それまではプロファイルを使わずに提案してください（別のIDを推測して試さないでください）"
	// MsgNoProfiles is every lookup's answer on a server that has no profiles (Finder.None), and
	// HintNoProfiles what an agent does then.
	MsgNoProfiles  = "このサーバーにはプロファイルがありません（公開されたビルドにはプロファイルが含まれません）"
	HintNoProfiles = "プロファイルを使わずに提案してください"
)

// Profile is one user's profile, in the order the tool returns it.
type Profile struct {
	ProfileID        string `json:"profile_id"`
	Age              *int   `json:"age"` // null: the cell could not be read as a number
	Gender           string `json:"gender"`
	UserType         string `json:"user_type"`
	PrimaryStoreID   string `json:"primary_store_id"`
	PrimaryStoreName string `json:"primary_store_name"`
	Visits           *int   `json:"visits"`
	Narrative        string `json:"narrative"`
}

// sourceName is the shape NARRATIVE_DATA_FILE must have: a plain file name, never a path.
var sourceName = regexp.MustCompile(`^narrative_data[A-Za-z0-9_.-]*\.csv$`)

// CheckSource validates a NARRATIVE_DATA_FILE value ("" means the default) and returns the source.
func CheckSource(name string) (string, error) {
	if name == "" {
		return defaultSource, nil
	}
	if !sourceName.MatchString(name) || !schema.Profiles.MatchesFile(name) {
		return "", fault.Errorf(fault.KindUsage, "NARRATIVE_DATA_FILE must be a plain narrative_data*.csv file name, not %q", name)
	}
	return name, nil
}

// Finder looks profiles up in the current build of a database.
type Finder struct {
	Live   *database.Live
	Source string // the profile source file (see CheckSource)
	// Pinned, when set, is the only profile id that may be returned: a host that binds the tool to
	// the signed-in user pins it, and every other id is "not found".
	Pinned string
	// ForAgent is set where an agent reads the answers (ctool mcp): an unknown id's hint asks it to
	// check the id with the visitor, since the operator's files and variables are nothing it can change.
	ForAgent bool
	// None says the server has no profiles at all: its builds are followed from an object store,
	// where profiles are never published beside them (internal/publish). Every lookup answers
	// MsgNoProfiles, kind not_found, and no file is opened.
	None bool
}

// NewFinder checks source (a NARRATIVE_DATA_FILE value) and returns a Finder over live. A pin, when
// one is given, is the only profile id the Finder returns. A pin is checked as an id is: an empty or
// blank one (an unset variable in a launch script) is a usage error, never "no pin", which would
// serve every profile.
func NewFinder(live *database.Live, source string, pin ...string) (*Finder, error) {
	src, err := CheckSource(source)
	if err != nil {
		return nil, err
	}
	f := &Finder{Live: live, Source: src}
	switch len(pin) {
	case 0:
	case 1:
		if err := checkID(pin[0]); err != nil {
			return nil, fault.Errorf(fault.KindUsage, "the pinned profile id %q names no one; pin one profile id (an empty pin would serve every profile)", pin[0])
		}
		f.Pinned = pin[0]
	default:
		return nil, errOneID()
	}
	return f, nil
}

// findSQL reads a profile by id; LIMIT 2 tells one from several.
const findSQL = `SELECT profile_id, age, gender, user_type, primary_store_id, primary_store_name, visits, narrative
	FROM profiles WHERE source_file = ? AND profile_id = ? LIMIT 2`

// profileOf reads one row of findSQL; a NULL text or a value of another type is an error, as Scan's
// was. A NULL number is unknown: its cell could not be read as one (a warning at ingest).
func profileOf(vals []any) (Profile, error) {
	var p Profile
	strs := []*string{&p.ProfileID, nil, &p.Gender, &p.UserType, &p.PrimaryStoreID, &p.PrimaryStoreName, nil, &p.Narrative}
	ints := map[int]**int{1: &p.Age, 6: &p.Visits}
	for i, v := range vals {
		switch x := v.(type) {
		case nil:
			if ints[i] != nil {
				continue
			}
		case string:
			if strs[i] != nil {
				*strs[i] = x
				continue
			}
		case int32:
			if ints[i] != nil {
				n := int(x)
				*ints[i] = &n
				continue
			}
		case int64:
			if ints[i] != nil {
				n := int(x)
				*ints[i] = &n
				continue
			}
		}
		return Profile{}, fmt.Errorf("read profiles: column %d holds %T", i+1, v)
	}
	return p, nil
}

// notFoundHint is an unknown id's hint, the same whatever the id. To the operator (ctool profile) it
// says which profiles file a lookup read and that another is chosen where ctool runs, and names no
// other file: whether the id is in one is not for a caller to learn (no enumeration). To an agent it
// says to check the id with the visitor. A pinned Finder answers a signed-in user, who chooses no id
// and no file: it has no hint.
func (f *Finder) notFoundHint() string {
	switch {
	case f.Pinned != "":
		return ""
	case f.ForAgent:
		return HintCheckID
	}
	return fmt.Sprintf("profiles are read from %s only (NARRATIVE_DATA_FILE); set NARRATIVE_DATA_FILE where ctool runs to read another ingested narrative_data*.csv", f.Source)
}

// Find returns exactly one profile: the one with id, trimmed, among the profiles ingested from the
// source.
func (f *Finder) Find(ctx context.Context, id string) (*Profile, error) {
	id = strings.TrimSpace(id)
	if err := checkID(id); err != nil {
		return nil, err
	}
	if f.None {
		return nil, &fault.Error{Kind: fault.KindNotFound, Message: MsgNoProfiles, Hint: HintNoProfiles}
	}
	if f.Pinned != "" && id != f.Pinned {
		return nil, &fault.Error{Kind: fault.KindNotFound, Message: MsgNotFound + id}
	}
	b, release, err := f.Live.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	file, err := b.Profiles(ctx)
	if err != nil {
		return nil, err
	}
	conn, err := file.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var found []Profile
	// Kept prepared on the connection: a lookup pays for running the statement, not for parsing it.
	execErr, readErr := conn.Prepared(ctx, guard.Const(findSQL), []any{f.Source, id}, func(rows *database.Stream) error {
		vals := make([]any, 8)
		for {
			if more, err := rows.Next(vals); err != nil || !more {
				return err
			}
			p, err := profileOf(vals)
			if err != nil {
				return err
			}
			found = append(found, p)
		}
	})
	if execErr != nil {
		return nil, fmt.Errorf("read profiles: %w", execErr)
	}
	if readErr != nil {
		return nil, readErr
	}
	switch len(found) {
	case 1:
		return &found[0], nil
	case 0:
		var ingested bool
		// On the connection already held: the pool may have no other to give while it is.
		if err := conn.QueryRow(ctx, guard.Const(`SELECT EXISTS (SELECT 1 FROM profiles WHERE source_file = ?)`), f.Source).Scan(&ingested); err == nil && !ingested {
			return nil, fault.Errorf(fault.KindUsage, "no profiles were ingested from %s (NARRATIVE_DATA_FILE); run 'ctool ingest' with that file in the input directory", f.Source)
		}
		return nil, &fault.Error{Kind: fault.KindNotFound, Message: MsgNotFound + id, Hint: f.notFoundHint()}
	}
	return nil, fmt.Errorf("profile %q appears more than once in %s", id, f.Source)
}
