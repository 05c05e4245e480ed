package textdiff

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// show writes edits as text: [-deleted-]{+inserted+}.
func show(edits []Edit) string {
	var b strings.Builder
	for _, e := range edits {
		switch e.Op {
		case Delete:
			b.WriteString("[-" + e.Text + "-]")
		case Insert:
			b.WriteString("{+" + e.Text + "+}")
		default:
			b.WriteString(e.Text)
		}
	}
	return b.String()
}

func TestDiff(t *testing.T) {
	for _, c := range []struct{ old, new, want string }{
		{"", "", ""},
		{"same", "same", "same"},
		{"", "new", "{+new+}"},
		{"old", "", "[-old-]"},
		// Japanese is compared character by character.
		{"地中海料理をカジュアルに楽しめます。", "地中海料理を気軽に楽しめます。", "地中海料理を[-カジュアル-]{+気軽+}に楽しめます。"},
		{"楽しめます。", "楽しめます。AIへの指示", "楽しめます。{+AIへの指示+}"},
		// Words and numbers are compared whole.
		{"open from 10:00 to 20:00", "open from 10:00 to 21:00", "open from 10:00 to [-20-]{+21+}:00"},
		{"15,120円(税込)〜", "16,200円(税込)〜", "[-15,120-]{+16,200+}円(税込)〜"},
		{"the quick brown fox", "the slow brown fox", "the [-quick-]{+slow+} brown fox"},
		// A short piece between two changes is part of one change.
		{"03-6230-1003", "03-0000-0000", "03-[-6230-1003-]{+0000-0000+}"},
		// Invalid UTF-8 is kept byte for byte.
		{"a\xffb", "a\xfeb", "a[-\xff-]{+\xfe+}b"},
	} {
		got := Diff(c.old, c.new)
		if show(got) != c.want {
			t.Errorf("Diff(%q, %q) = %q, want %q", c.old, c.new, show(got), c.want)
		}
		checkEdits(t, c.old, c.new, got)
	}
}

// checkEdits holds edits to their promise: both texts byte for byte, no empty piece, no two pieces of
// one kind in a row, a Delete before its Insert.
func checkEdits(t *testing.T, old, new string, edits []Edit) {
	t.Helper()
	var o, n strings.Builder
	for i, e := range edits {
		if e.Text == "" {
			t.Fatalf("an empty piece in %q", show(edits))
		}
		if i > 0 && (edits[i-1].Op == e.Op || edits[i-1].Op == Insert && e.Op == Delete) {
			t.Fatalf("pieces out of order in %q", show(edits))
		}
		if e.Op != Insert {
			o.WriteString(e.Text)
		}
		if e.Op != Delete {
			n.WriteString(e.Text)
		}
	}
	if o.String() != old || n.String() != new {
		t.Fatalf("the edits make %q and %q of %q and %q", o.String(), n.String(), old, new)
	}
}

// Beyond the bounds the middle is one replacement, the common start and end kept.
func TestDiffBounded(t *testing.T) {
	big := strings.Repeat("あ", MaxBytes/3+1)
	edits := Diff("x"+big+"y", "x"+big+"z")
	if show(edits) != "x"+big+"[-y-]{+z+}" {
		t.Errorf("a long text: %d edits", len(edits))
	}
	// Texts that differ in every other token are not compared token by token past MaxEdits.
	var a, b strings.Builder
	for i := range MaxEdits {
		fmt.Fprintf(&a, "w%d a ", i)
		fmt.Fprintf(&b, "v%d a ", i)
	}
	edits = Diff(a.String(), b.String())
	checkEdits(t, a.String(), b.String(), edits)
	if len(edits) != 3 { // w0 / v0 … then the same end
		t.Errorf("texts differing by too much: %d edits", len(edits))
	}
	// Within the bounds, every change is found.
	small := func(s string) string { return strings.Repeat(s+" same words here ", 50) }
	edits = Diff(small("one"), small("two"))
	checkEdits(t, small("one"), small("two"), edits)
	if n := strings.Count(show(edits), "[-one-]{+two+}"); n != 50 {
		t.Errorf("found %d of 50 changes", n)
	}
}

func parts(ps []Part) string {
	var b strings.Builder
	for _, p := range ps {
		switch {
		case p.Gap:
			b.WriteString("…")
		case p.Changed:
			b.WriteString("[" + p.Text + "]")
		default:
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func TestShow(t *testing.T) {
	s := Show("03-6230-1003", "03-0000-0000")
	if parts(s.Old) != "03-[6230-1003]" || parts(s.New) != "03-[0000-0000]" || s.Cut {
		t.Errorf("a short text: %q %q %v", parts(s.Old), parts(s.New), s.Cut)
	}
	// A long text: the change with Context characters around it.
	before, after := strings.Repeat("前", 300), strings.Repeat("後", 300)
	s = Show(before+"20:00"+after, before+"21:00"+after)
	want := func(mid string) string {
		return "…" + strings.Repeat("前", Context) + "[" + mid + "]:00" + strings.Repeat("後", Context-3) + "…"
	}
	if parts(s.Old) != want("20") || parts(s.New) != want("21") || !s.Cut {
		t.Errorf("a long text:\n%q\n%q", parts(s.Old), parts(s.New))
	}
	// Two changes far apart: the unchanged text between them is cut too.
	s = Show("a"+before+"b", "x"+before+"y")
	if parts(s.Old) != "[a]"+strings.Repeat("前", Context)+"…"+strings.Repeat("前", Context)+"[b]" {
		t.Errorf("two changes: %q", parts(s.Old))
	}
	// A long changed piece: its start and end.
	s = Show("", before)
	if len(s.Old) != 0 || parts(s.New) != "["+strings.Repeat("前", MaxChanged*3/4)+"]…["+strings.Repeat("前", MaxChanged/4)+"]" {
		t.Errorf("a long insertion: %q", parts(s.New))
	}
	// No more than MaxChanges changes.
	var a, b strings.Builder
	for i := range 3 * MaxChanges {
		fmt.Fprintf(&a, "%s w%d ", strings.Repeat("x", 20), i)
		fmt.Fprintf(&b, "%s v%d ", strings.Repeat("x", 20), i)
	}
	s = Show(a.String(), b.String())
	if n := strings.Count(parts(s.Old), "["); n != MaxChanges || !s.Old[len(s.Old)-1].Gap {
		t.Errorf("%d changes shown: %q", n, parts(s.Old))
	}
}

// FuzzShow: whatever two texts, the edits make both byte for byte and the excerpts are pieces of them,
// in order, bounded.
func FuzzShow(f *testing.F) {
	for _, s := range [][2]string{
		{"", ""}, {"a", ""}, {"03-6230-1003", "03-0000-0000"},
		{"地中海料理をカジュアルに楽しめます。", "地中海料理を気軽に楽しめます。AIへの指示"},
		{`{"monday": [{"open": "10:00", "close": "20:00"}]}`, `{"monday": [{"open": "10:00", "close": "21:00"}]}`},
		{"a\xffb\xe3\x81", "\xe3\x81\x82\xffb"},
		{strings.Repeat("ab ", 200), strings.Repeat("ba ", 200)},
		{"<script>alert(1)</script>", "<b>&amp;</b>"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, old, new string) {
		checkEdits(t, old, new, Diff(old, new))
		s := Show(old, new)
		for _, side := range []struct {
			text  string
			parts []Part
		}{{old, s.Old}, {new, s.New}} {
			rest, shown, changes := side.text, 0, 0
			for i, p := range side.parts {
				if p.Gap {
					if !s.Cut {
						t.Fatal("a gap in a text shown whole")
					}
					continue
				}
				if p.Text == "" {
					t.Fatalf("an empty part in %q", parts(side.parts))
				}
				at := strings.Index(rest, p.Text)
				if at < 0 || !s.Cut && at != 0 {
					t.Fatalf("part %d %q is not in %q in order", i, p.Text, side.text)
				}
				rest = rest[at+len(p.Text):]
				shown += utf8.RuneCountInString(p.Text)
				if p.Changed && (i == 0 || !side.parts[i-1].Changed) {
					changes++
				}
			}
			if !s.Cut && rest != "" {
				t.Fatalf("a text shown whole lacks %q", rest)
			}
			if s.Cut && shown > (MaxChanges+1)*(MaxChanged+2*Context+Context/4) {
				t.Fatalf("%d characters shown of a cut text", shown)
			}
		}
	})
}
