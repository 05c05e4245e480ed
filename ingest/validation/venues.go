package validation

import (
	"fmt"
	"strings"

	"github.com/azabudai/ctool/internal/escape"
	"github.com/azabudai/ctool/schema/venuematch"
)

// RuleVenue: an event's venue that reads like a store names one store of the stores file
// (venuematch.Venues). A warning: the event is still loaded, its events_typed.store_id NULL.
const RuleVenue = "venue"

// venueCheck matches events' venues against the stores file's names, each venue once.
type venueCheck struct {
	venues *venuematch.Venues
	seen   map[string]*Problem // a venue's problem without its line; nil when it has none
}

// maxSeenVenues bounds the memory of venues already matched; past it each venue is matched again.
const maxSeenVenues = 1 << 16

// venue checks the venue of one event's location cell.
func (v *validator) venue(f *File, line int, location string) {
	if v.venues == nil {
		return // no stores file was read
	}
	venue := venuematch.VenueOf(location)
	if venue == "" {
		return
	}
	p, ok := v.venues.seen[venue]
	if !ok {
		p = v.venueProblem(venue)
		if len(v.venues.seen) < maxSeenVenues {
			v.venues.seen[venue] = p
		}
	}
	if p != nil {
		q := *p
		q.File, q.Line = f.Path, line
		v.addRow(q)
	}
}

// venueProblem is what a venue that names no store but reads like one is reported as.
func (v *validator) venueProblem(venue string) *Problem {
	m := v.venues.venues.Match(venue)
	severity := SeverityWarning
	if v.strict {
		severity = ""
	}
	p := &Problem{Column: "location", Rule: RuleVenue, Severity: severity}
	switch {
	case len(m.Several) > 0:
		var names []string
		for _, s := range m.Several {
			names = append(names, fmt.Sprintf("%s (%s)", escape.Quote(s.Name), escape.Visible(s.ID)))
		}
		p.Message = fmt.Sprintf("venue %s fits the stores %s alike, so it names none; give stores distinct names",
			escape.Quote(venue), strings.Join(names, " and "))
	case m.LooksLikeStore && m.Like.ID != "":
		p.Message = fmt.Sprintf("venue %s reads like a store but names none; is it %s (%s)? Write the store's name as the stores file has it",
			escape.Quote(venue), escape.Quote(m.Like.Name), escape.Visible(m.Like.ID))
	case m.LooksLikeStore:
		p.Message = fmt.Sprintf("venue %s reads like a store but names none of the stores file; add the store, or write its name as the stores file has it",
			escape.Quote(venue))
	default:
		return nil
	}
	return p
}
