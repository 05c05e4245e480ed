package main

import (
	"strconv"
	"strings"

	"github.com/azabudai/ctool/ingest/validation"
	"github.com/urfave/cli/v2"
)

// maxFileSizeFlag is --max-file-size of validate and ingest: larger input files are refused unread.
func maxFileSizeFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "max-file-size", Value: strconv.Itoa(validation.DefaultMaxFileSize>>20) + "MiB",
		Usage: "refuse, unread, any input file larger than `SIZE` (bytes, or with KiB, MiB, GiB)"}
}

// maxFileSize reads --max-file-size.
func maxFileSize(c *cli.Context) (int64, error) {
	return sizeValue(c, "max-file-size", "256MiB", false)
}

// sizeValue reads flag name as a size in bytes, or with KiB, MiB, GiB; 0 only when zeroOK.
func sizeValue(c *cli.Context, name, example string, zeroOK bool) (int64, error) {
	s := strings.TrimSpace(c.String(name))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"B", 1}} {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = strings.TrimSpace(rest), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n == 0 && !zeroOK || n > (1<<50)/mult {
		what := "a positive size"
		if zeroOK {
			what = "a size"
		}
		return 0, usageError("--%s must be %s such as %s, not %q", name, what, example, c.String(name))
	}
	return n * mult, nil
}
