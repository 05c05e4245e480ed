package main

import "github.com/urfave/cli/v2"

// Tests fix the contracts' "today" with --today or CTOOL_TODAY (the scripts set it to 2025-09-01): a
// test's result must not depend on the real date. Only test builds have either.
func init() {
	testFlags = append(testFlags, &cli.StringFlag{Name: "today", Hidden: true})
	testToday = func(c *cli.Context, getenv func(string) string) string {
		if t := c.String("today"); t != "" {
			return t
		}
		return getenv("CTOOL_TODAY")
	}
}
