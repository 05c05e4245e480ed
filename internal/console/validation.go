package console

import (
	"bufio"
	"errors"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/azabudai/ctool/ingest/validation"
	"github.com/azabudai/ctool/schema"
)

// The last validation: ctool validate's findings on --input, run again when a file of the directory
// changes. Problems in the profiles' files keep their place (file, line, column, rule) and lose their
// message, which may quote personal data; their lines are never shown.

type validationData struct {
	Input    string
	RanAt    string
	Valid    bool
	Errors   int
	Warnings int
	Shown    int
	Problems []problemRow
	Err      string
}

type problemRow struct {
	validation.Problem
	Name     string // the file's base name
	Personal bool
	Link     string // the source line, for a public file
}

// maxProblems is how many problems the page lists; all are counted.
const maxProblems = 1000

type validationCache struct {
	mu  sync.Mutex
	key string
	val *validationData
}

func (s *Server) validation() (*validationData, error) {
	key, err := dirKey(s.cfg.Input)
	if err != nil {
		return nil, err
	}
	c := &s.checks
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.key == key && c.val != nil {
		return c.val, nil
	}
	d := &validationData{Input: s.cfg.Input, RanAt: s.cfg.Now().In(schema.Tokyo).Format("2006-01-02 15:04:05 MST")}
	res, err := validation.Run(s.cfg.Input, validation.Options{MaxErrors: maxProblems})
	if err != nil {
		d.Err = err.Error()
	} else {
		rep := res.Report
		d.Valid, d.Errors, d.Warnings, d.Shown = rep.Valid(), rep.Count, rep.Warnings, len(rep.Problems)
		for _, p := range rep.Problems {
			row := problemRow{Problem: p, Name: filepath.Base(p.File)}
			if personalFile(row.Name) {
				row.Personal = true
				row.Message = ""
			} else if p.Line > 0 && publicFile(row.Name) {
				row.Link = "/source?file=" + url.QueryEscape(row.Name) + "&line=" + strconv.Itoa(p.Line) + "#L" + strconv.Itoa(p.Line)
			}
			d.Problems = append(d.Problems, row)
		}
	}
	c.key, c.val = key, d
	return d, nil
}

func (s *Server) validationPage(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Input == "" {
		s.fail(w, r, &httpError{status: http.StatusNotFound, msg: "start the console with --input DIR to see its validation"})
		return
	}
	d, err := s.validation()
	if err != nil {
		s.fail(w, r, &httpError{status: http.StatusInternalServerError, msg: "the input directory cannot be read"})
		return
	}
	p := s.newPage(r, "validation")
	p.Title = p.T("Validation")
	s.render(w, p, "validation", d)
}

// personalFile reports a file of a private dataset (the profiles).
func personalFile(name string) bool {
	for _, d := range schema.All() {
		if d.Private && d.MatchesFile(name) {
			return true
		}
	}
	return false
}

// publicFile reports a file of a public dataset.
func publicFile(name string) bool {
	for _, d := range schema.Public() {
		if d.MatchesFile(name) {
			return true
		}
	}
	return false
}

// sourceData is a few physical lines of an input file around one.
type sourceData struct {
	File  string
	Line  int
	Lines []sourceLine
}

type sourceLine struct {
	N      int
	Text   string
	Cut    bool
	Target bool
}

// sourceContext is how many lines the source page shows before and after the line asked for.
const (
	sourceBefore   = 2
	sourceAfter    = 6
	sourceMaxBytes = 20_000
)

// sourcePage shows the lines of a public input file around a line: only a file of a public dataset,
// opened inside --input (os.Root: no name leads out of it).
func (s *Server) sourcePage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	name := q.Get("file")
	line, err := strconv.Atoi(q.Get("line"))
	if s.cfg.Input == "" || name == "" || name != filepath.Base(name) || !publicFile(name) || personalFile(name) || err != nil || line < 1 {
		s.fail(w, r, errNotFound)
		return
	}
	root, err := os.OpenRoot(s.cfg.Input)
	if err != nil {
		s.fail(w, r, &httpError{status: http.StatusInternalServerError, msg: "the input directory cannot be read"})
		return
	}
	defer root.Close()
	f, err := root.Open(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			s.fail(w, r, errNotFound)
		} else {
			s.fail(w, r, &httpError{status: http.StatusInternalServerError, msg: "the file cannot be read"})
		}
		return
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		s.fail(w, r, errNotFound)
		return
	}
	d := &sourceData{File: name, Line: line}
	br := bufio.NewReaderSize(f, 64<<10)
	deadline := time.Now().Add(10 * time.Second)
	for n := 1; n <= line+sourceAfter; n++ {
		text, cut, err := readLine(br)
		if err != nil && text == "" {
			break
		}
		if n >= line-sourceBefore {
			d.Lines = append(d.Lines, sourceLine{N: n, Text: strings.ToValidUTF8(text, "\uFFFD"), Cut: cut, Target: n == line})
		}
		if time.Now().After(deadline) || r.Context().Err() != nil {
			break
		}
	}
	p := s.newPage(r, "validation")
	p.Title = name
	s.render(w, p, "source", d)
}

// readLine reads one physical line without its end, keeping at most sourceMaxBytes of it.
func readLine(br *bufio.Reader) (string, bool, error) {
	var b strings.Builder
	cut := false
	for {
		part, err := br.ReadSlice('\n')
		if b.Len() < sourceMaxBytes {
			b.Write(part[:min(len(part), sourceMaxBytes-b.Len())])
		} else if len(part) > 0 {
			cut = true
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		text := strings.TrimRight(b.String(), "\r\n")
		return text, cut, err
	}
}

// rulesJa explain validate's rule words in Japanese, as ingest.Rules does in English: the problems'
// messages are validate's own, in English (they are its output, as the CLI prints it), and a Japanese
// page says beside each what its rule checks.
// TestRulesExplained holds every rule word to an entry.
var rulesJa = map[string]string{
	"missing-file":     "データセットのファイルが入力ディレクトリにありません",
	"file":             "通常のファイルでないか、大きすぎます",
	"encoding":         "UTF-8 ではありません",
	"header":           "見出し行の列名がデータセットの列と合いません",
	"ragged":           "フィールドの数が見出し行と違います",
	"required":         "必須の列が空です",
	"type":             "整数の列に整数でない値があります（値は不明として扱います）",
	"format":           "CSV の書式、または日付・期間・日時の書き方が正しくありません",
	"enum":             "フラグ・選択肢の列に決められた値以外があります（値は不明として扱います）",
	"json":             "JSON の列が正しい JSON ではありません（値は不明として扱います）",
	"duplicate_key":    "JSON オブジェクトに同じキーが2回あります",
	"schema":           "JSON の列が JSON Schema に合いません（値は不明として扱います）",
	"hours":            "文章で書かれた営業時間を読み取れません（営業時間は不明として扱います）",
	"injection":        "AI エージェントに宛てた文があります（そのまま保持し、エージェントへの回答ではデータとして扱うよう注記します）",
	"unique":           "主キーがファイル内で重複しています",
	"reference":        "store_id が店舗ファイルにありません",
	"venue":            "店舗名らしい会場名が、店舗ファイルのどの店舗とも一致しません",
	"place":            "place.json の形式が正しくありません",
	"removed":          "前回のビルドから行が減りすぎています",
	"still-referenced": "他のデータが参照しているキーがなくなりました",
	"upcoming":         "今日以降に終わるイベントが1つもありません",
}

// Rule is what a rule word checks, on a Japanese page; "" on an English one, whose messages say it.
func (p *page) Rule(rule string) string {
	if p.Lang == "en" {
		return ""
	}
	return rulesJa[rule]
}
