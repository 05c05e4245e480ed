package hours

import (
	"encoding/json"
	"sort"
)

// readHoursJSON reads {"monday": [{"open": "10:00", "close": "20:00"}], ..., "holiday": [...]}: the
// keys are days, each an array of exactly open and close. A day left out is unknown; an object with
// no day says nothing.
func readHoursJSON(s string) (Hours, bool) {
	var days map[string]json.RawMessage
	if json.Unmarshal([]byte(s), &days) != nil || len(days) == 0 {
		return Hours{}, false
	}
	var h Hours
	for key, raw := range days {
		d := indexOf(jsonDays[:], key)
		var items []map[string]string
		if d < 0 || json.Unmarshal(raw, &items) != nil || items == nil {
			return Hours{}, false
		}
		if len(items) == 0 {
			h.Closed[d] = true
		}
		for _, it := range items {
			o, ok1 := hhmm(it["open"])
			c, ok2 := hhmm(it["close"])
			sp, ok3 := makeSpan(d, o, c)
			if len(it) != 2 || !ok1 || !ok2 || !ok3 {
				return Hours{}, false
			}
			h.Spans = append(h.Spans, sp)
		}
	}
	sortSpans(h.Spans)
	return h, true
}

// hhmm reads the schema's "HH:MM", 00:00 to 29:59, as minutes.
func hhmm(s string) (int, bool) {
	if len(s) != 5 || s[2] != ':' || !isDigit(s[0]) || !isDigit(s[1]) || !isDigit(s[3]) || !isDigit(s[4]) {
		return 0, false
	}
	h, m := int(s[0]-'0')*10+int(s[1]-'0'), int(s[3]-'0')*10+int(s[4]-'0')
	if h > 29 || m > 59 {
		return 0, false
	}
	return h*60 + m, true
}

// makeSpan normalises an open and a close as written: a close at or before the open is the next
// day's; a span longer than a day, or opening past 29:59, is not hours.
func makeSpan(d, open, close int) (Span, bool) {
	if close <= open {
		close += dayMinutes
	}
	if open < 0 || open > latestOpen || close <= open || close > open+dayMinutes {
		return Span{}, false
	}
	return Span{Day: d, Open: open, Close: close}, true
}

func sortSpans(ss []Span) {
	sort.Slice(ss, func(i, j int) bool {
		if ss[i].Day != ss[j].Day {
			return ss[i].Day < ss[j].Day
		}
		return ss[i].Open < ss[j].Open
	})
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}
