package console

import (
	"fmt"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Parquet is written with Apache Arrow's Go library (the duckdb-go driver already depends on it):
// DuckDB's own writer (COPY ... TO) writes files, and a reader of a build has no file system and runs
// no statement but a SELECT. The rows come from the same chunked stream as the other formats and
// leave as one row group a chunk, so memory stays that of one chunk here too.

type parquetWriter struct {
	fw   *pqarrow.FileWriter
	b    *array.RecordBuilder
	cols []column
	n    int
	err  error
}

// arrowType is a column type of the typed relations in Arrow's terms.
func arrowType(t string) arrow.DataType {
	switch t {
	case "INTEGER":
		return arrow.PrimitiveTypes.Int32
	case "BOOLEAN":
		return arrow.FixedWidthTypes.Boolean
	case "DATE":
		return arrow.FixedWidthTypes.Date32
	case "TIME":
		return arrow.FixedWidthTypes.Time64us
	case "TIMESTAMP":
		return &arrow.TimestampType{Unit: arrow.Microsecond}
	case "VARCHAR[]":
		return arrow.ListOf(arrow.BinaryTypes.String)
	}
	return arrow.BinaryTypes.String
}

func newParquet(w io.Writer, cols []column) rowWriter {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: arrowType(c.Type), Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	pw := &parquetWriter{cols: cols, b: array.NewRecordBuilder(memory.DefaultAllocator, schema)}
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy), parquet.WithMaxRowGroupLength(int64(exportChunk)))
	pw.fw, pw.err = pqarrow.NewFileWriter(schema, w, props, pqarrow.DefaultWriterProps())
	return pw
}

func (p *parquetWriter) write(vals []any) error {
	if p.err != nil {
		return p.err
	}
	for i, v := range vals {
		fb := p.b.Field(i)
		if v == nil {
			fb.AppendNull()
			continue
		}
		switch b := fb.(type) {
		case *array.StringBuilder:
			b.Append(valueText(v, p.cols[i].Type))
		case *array.Int32Builder:
			switch x := v.(type) {
			case int32:
				b.Append(x)
			case int64:
				b.Append(int32(x))
			default:
				return fmt.Errorf("parquet: %s: %T", p.cols[i].Name, v)
			}
		case *array.BooleanBuilder:
			b.Append(v.(bool))
		case *array.Date32Builder:
			b.Append(arrow.Date32FromTime(v.(time.Time)))
		case *array.Time64Builder:
			t := v.(time.Time)
			b.Append(arrow.Time64(time.Duration(t.Hour())*time.Hour/time.Microsecond + time.Duration(t.Minute())*time.Minute/time.Microsecond +
				time.Duration(t.Second())*time.Second/time.Microsecond + time.Duration(t.Nanosecond())/time.Microsecond))
		case *array.TimestampBuilder:
			b.Append(arrow.Timestamp(v.(time.Time).UnixMicro()))
		case *array.ListBuilder:
			b.Append(true)
			vb := b.ValueBuilder().(*array.StringBuilder)
			for _, e := range v.([]any) {
				if e == nil {
					vb.AppendNull()
				} else {
					vb.Append(valueText(e, "VARCHAR"))
				}
			}
		default:
			return fmt.Errorf("parquet: %s: no builder for %T", p.cols[i].Name, fb)
		}
	}
	p.n++
	if p.n == exportChunk {
		return p.flush()
	}
	return nil
}

func (p *parquetWriter) flush() error {
	if p.n == 0 {
		return nil
	}
	rec := p.b.NewRecordBatch()
	defer rec.Release()
	p.n = 0
	return p.fw.Write(rec)
}

func (p *parquetWriter) close() error {
	if p.err != nil {
		return p.err
	}
	if err := p.flush(); err != nil {
		return err
	}
	p.b.Release()
	return p.fw.Close()
}
