package worker

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
)

// EncodeResult writes a result for another process (a query worker's answer) so that DecodeResult
// gives back the same Result: every exported field by its JSON encoding, the dataset by name, and the
// rows' values with their exact Go types, those query.Result holds (a JSON round trip would turn int64
// into float64 and lose the column order of objects).
func EncodeResult(r *query.Result) ([]byte, error) {
	head := *r
	head.Dataset, head.Rows = nil, nil
	h, err := json.Marshal(&head)
	if err != nil {
		return nil, err
	}
	name := ""
	if r.Dataset != nil {
		name = r.Dataset.Name
	}
	b := binary.AppendUvarint(nil, uint64(len(h)))
	b = append(b, h...)
	b = appendString(b, name)
	b = binary.AppendUvarint(b, uint64(len(r.Rows)))
	for _, row := range r.Rows {
		b = binary.AppendUvarint(b, uint64(len(row)))
		for _, v := range row {
			if b, err = appendValue(b, v); err != nil {
				return nil, err
			}
		}
	}
	return b, nil
}

// DecodeResult reads what EncodeResult wrote.
func DecodeResult(b []byte) (*query.Result, error) {
	d := &decoder{b: b}
	h := d.bytes()
	name := d.string()
	if d.err != nil {
		return nil, d.err
	}
	r := &query.Result{}
	if err := json.Unmarshal(h, r); err != nil {
		return nil, err
	}
	// The dataset travels by name only: a header that carries one of its own is not believed.
	r.Dataset = nil
	if name != "" {
		ds, err := schema.ByName(name)
		if err != nil {
			return nil, err
		}
		r.Dataset = ds
	}
	n := d.count()
	r.Rows = make([][]any, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		row := make([]any, d.count())
		for j := range row {
			row[j] = d.value(0)
		}
		r.Rows = append(r.Rows, row)
	}
	if d.err == nil && len(d.b) > 0 {
		d.err = errors.New("trailing bytes")
	}
	if d.err != nil {
		return nil, fmt.Errorf("decode a query result: %w", d.err)
	}
	return r, nil
}

// Tags of the value kinds a query.Result holds.
const (
	tagNil byte = iota
	tagFalse
	tagTrue
	tagString
	tagInt8
	tagInt16
	tagInt32
	tagInt64
	tagInt
	tagUint8
	tagUint16
	tagUint32
	tagUint64
	tagFloat64
	tagNumber
	tagList
	tagObject
)

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendValue(b []byte, v any) ([]byte, error) {
	var err error
	switch x := v.(type) {
	case nil:
		return append(b, tagNil), nil
	case bool:
		if x {
			return append(b, tagTrue), nil
		}
		return append(b, tagFalse), nil
	case string:
		return appendString(append(b, tagString), x), nil
	case int8:
		return binary.AppendVarint(append(b, tagInt8), int64(x)), nil
	case int16:
		return binary.AppendVarint(append(b, tagInt16), int64(x)), nil
	case int32:
		return binary.AppendVarint(append(b, tagInt32), int64(x)), nil
	case int64:
		return binary.AppendVarint(append(b, tagInt64), x), nil
	case int:
		return binary.AppendVarint(append(b, tagInt), int64(x)), nil
	case uint8:
		return binary.AppendUvarint(append(b, tagUint8), uint64(x)), nil
	case uint16:
		return binary.AppendUvarint(append(b, tagUint16), uint64(x)), nil
	case uint32:
		return binary.AppendUvarint(append(b, tagUint32), uint64(x)), nil
	case uint64:
		return binary.AppendUvarint(append(b, tagUint64), x), nil
	case float64:
		return binary.BigEndian.AppendUint64(append(b, tagFloat64), math.Float64bits(x)), nil
	case json.Number:
		return appendString(append(b, tagNumber), string(x)), nil
	case []any:
		b = binary.AppendUvarint(append(b, tagList), uint64(len(x)))
		for _, e := range x {
			if b, err = appendValue(b, e); err != nil {
				return nil, err
			}
		}
		return b, nil
	case query.Object:
		b = binary.AppendUvarint(append(b, tagObject), uint64(len(x)))
		for _, m := range x {
			b = appendString(b, m.Key)
			if b, err = appendValue(b, m.Value); err != nil {
				return nil, err
			}
		}
		return b, nil
	}
	return nil, fmt.Errorf("query: cannot encode a result value of type %T", v)
}

// decoder reads an encoded result; the first error sticks and every later read returns zero values.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = errors.New(what)
	}
	d.b = nil
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("bad length")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail("bad integer")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count is a length that must fit in what is left: no length can make the decoder allocate more
// than the bytes it was given.
func (d *decoder) count() int {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail("length past the end")
		return 0
	}
	return int(n)
}

func (d *decoder) bytes() []byte {
	n := d.count()
	s := d.b[:n:n]
	d.b = d.b[n:]
	return s
}

func (d *decoder) string() string { return string(d.bytes()) }

// maxDepth bounds nesting so that hostile bytes cannot exhaust the stack.
const maxDepth = 10_000

func (d *decoder) value(depth int) any {
	if len(d.b) == 0 || depth > maxDepth {
		d.fail("truncated value")
		return nil
	}
	tag := d.b[0]
	d.b = d.b[1:]
	switch tag {
	case tagNil:
		return nil
	case tagFalse:
		return false
	case tagTrue:
		return true
	case tagString:
		return d.string()
	case tagInt8:
		return int8(d.varint())
	case tagInt16:
		return int16(d.varint())
	case tagInt32:
		return int32(d.varint())
	case tagInt64:
		return d.varint()
	case tagInt:
		return int(d.varint())
	case tagUint8:
		return uint8(d.uvarint())
	case tagUint16:
		return uint16(d.uvarint())
	case tagUint32:
		return uint32(d.uvarint())
	case tagUint64:
		return d.uvarint()
	case tagFloat64:
		if len(d.b) < 8 {
			d.fail("truncated float")
			return nil
		}
		f := math.Float64frombits(binary.BigEndian.Uint64(d.b))
		d.b = d.b[8:]
		return f
	case tagNumber:
		return json.Number(d.string())
	case tagList:
		out := make([]any, d.count())
		for i := range out {
			out[i] = d.value(depth + 1)
		}
		return out
	case tagObject:
		obj := make(query.Object, d.count())
		for i := range obj {
			obj[i].Key = d.string()
			obj[i].Value = d.value(depth + 1)
		}
		return obj
	}
	d.fail(fmt.Sprintf("unknown tag %d", tag))
	return nil
}
