package profile

import "testing"

// Every caller shares these: the command line, the MCP tool and the pin.
func TestIDRules(t *testing.T) {
	for _, c := range []struct {
		args []string
		id   string
		err  string
	}{
		{nil, "", ""},
		{[]string{" user_a "}, " user_a ", ""},
		{[]string{"a", "b"}, "", MsgOneID},
	} {
		id, err := ParseID(c.args)
		if id != c.id || (err == nil) != (c.err == "") || (err != nil && err.Error() != c.err) {
			t.Errorf("ParseID(%q) = %q, %v; want %q, %q", c.args, id, err, c.id, c.err)
		}
	}
	for raw, want := range map[string]string{`"user_a"`: "", ` ["a"]`: MsgOneID, `[]`: MsgOneID, `null`: ""} {
		err := CheckJSONID([]byte(raw))
		if (err == nil) != (want == "") || (err != nil && err.Error() != want) {
			t.Errorf("CheckJSONID(%s) = %v, want %q", raw, err, want)
		}
	}
	for id, bad := range map[string]bool{"": true, " \t": true, "user_a": false} {
		if err := checkID(id); (err != nil) != bad || (bad && err.Error() != MsgNoProfileID) {
			t.Errorf("checkID(%q) = %v", id, err)
		}
	}
}
