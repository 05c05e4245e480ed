package query

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/schema"
)

// budget is what is left of a result's size (roughly, bytes of JSON) while its values are converted:
// conversion stops as soon as it runs out, so a huge value is never converted whole.
type budget struct{ left int }

// spend takes n bytes; false once the budget is exceeded.
func (b *budget) spend(n int) bool {
	b.left -= n
	return b.left >= 0
}

func (b *budget) exceeded() bool { return b.left < 0 }

// jsonValue converts a value read from DuckDB into one that encodes faithfully: numbers stay numbers,
// booleans booleans, NULL null, lists arrays, structs objects, and dates and times ISO strings.
// dbType is the column's DuckDB type name; nested values go by their Go type. It charges b for what
// it converts and returns nil as soon as b is exceeded.
func jsonValue(v any, dbType string, b *budget) any {
	if b.exceeded() {
		return nil
	}
	switch x := v.(type) {
	case string:
		if !b.spend(len(x) + 2) {
			return nil
		}
		return x
	case []byte:
		if !b.spend(len(x)*4/3 + 4) {
			return nil
		}
	case []any:
		// Each element takes at least a byte and a comma: a list too long is refused before any
		// element is converted.
		if !b.spend(2 + len(x)*2) {
			return nil
		}
	case map[string]any:
		if !b.spend(2 + len(x)*6) {
			return nil
		}
	case database.Map:
		if !b.spend(2 + len(x.Keys)*6) {
			return nil
		}
	default:
		if !b.spend(8) {
			return nil
		}
	}
	switch x := v.(type) {
	case nil, bool, string, int8, int16, int32, int64, int, uint8, uint16, uint32, uint64:
		return x
	case float32:
		return finite(float64(x))
	case float64:
		return finite(x)
	case *big.Int:
		return json.Number(x.String())
	case database.Decimal:
		return json.Number(string(x))
	case time.Time:
		return timeText(x, dbType)
	case database.Interval:
		return fmt.Sprintf("%d months %d days %s", x.Months, x.Days, time.Duration(x.Micros)*time.Microsecond)
	case []byte:
		if dbType == "UUID" && len(x) == 16 {
			h := hex.EncodeToString(x)
			return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
		}
		if utf8.Valid(x) {
			return string(x)
		}
		return base64.StdEncoding.EncodeToString(x)
	case []any:
		elem := strings.TrimSuffix(dbType, "[]")
		if i := strings.LastIndex(elem, "["); i > 0 && strings.HasSuffix(elem, "]") {
			elem = elem[:i] // fixed-size ARRAY types read like INTEGER[2]
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonValue(e, elem, b)
		}
		return out
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		obj := make(Object, len(keys))
		for i, k := range keys {
			b.spend(len(k))
			obj[i] = Member{k, jsonValue(x[k], "", b)}
		}
		return obj
	case database.Map:
		return mapValue(x, b)
	default:
		return fmt.Sprint(x)
	}
}

func mapValue(m database.Map, b *budget) any {
	keys, values := m.Keys, m.Values
	obj := make(Object, len(keys))
	for i := range keys {
		obj[i] = Member{fmt.Sprint(jsonValue(keys[i], "", b)), jsonValue(values[i], "", b)}
	}
	return obj
}

// finite keeps numbers JSON can carry; NaN and infinities become strings.
func finite(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Sprint(f)
	}
	return f
}

func timeText(t time.Time, dbType string) string {
	switch {
	case dbType == "DATE":
		return t.Format(time.DateOnly)
	case dbType == "TIME":
		return t.Format("15:04:05")
	case strings.HasPrefix(dbType, "TIMESTAMP WITH TIME ZONE"), dbType == "TIMESTAMPTZ":
		return t.In(schema.Tokyo).Format(time.RFC3339Nano)
	case strings.HasPrefix(dbType, "TIMESTAMP"):
		return t.Format("2006-01-02T15:04:05.999999")
	case t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0:
		return t.Format(time.DateOnly) // a date inside a list or struct
	default:
		return t.Format("2006-01-02T15:04:05.999999")
	}
}
