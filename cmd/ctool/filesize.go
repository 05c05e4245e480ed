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
	s := strings.TrimSpace(c.String("max-file-size"))
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
	if err != nil || n <= 0 || n > (1<<50)/mult {
		return 0, usageError("--max-file-size must be a positive size such as 256MiB, not %q", c.String("max-file-size"))
	}
	return n * mult, nil
}
