package specs

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Pos is a position in a spec file (or in a --set argument): 1-based line and column, the
// column counting characters (runes) as Go's text/scanner does, not bytes.
type Pos struct {
	File string
	Line int
	Col  int
}

func (p Pos) String() string {
	return p.File + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col)
}

// runeCol is the column of byte offset i of line: the characters before it, plus one.
func runeCol(line string, i int) int { return utf8.RuneCountInString(line[:min(i, len(line))]) + 1 }

// byteIndex is the byte offset in line of column col (runeCol's inverse), len(line) past its end.
func byteIndex(line string, col int) int {
	i := 0
	for n := 1; n < col && i < len(line); n++ {
		_, k := utf8.DecodeRuneInString(line[i:])
		i += k
	}
	return i
}

// offsetPos is the position of byte offset off of src.
func offsetPos(file, src string, off int) Pos {
	off = min(max(off, 0), len(src))
	ls := strings.LastIndexByte(src[:off], '\n') + 1
	return Pos{file, strings.Count(src[:ls], "\n") + 1, runeCol(src[ls:], off-ls)}
}

// keyPos is where a key and its value start.
type keyPos struct {
	key, val Pos
}

// scanPositions finds where each key of a TOML document is written. BurntSushi/toml keeps
// key positions private (and one per key name, not per element of an array of tables), so
// this is a small line scanner for the subset spec files use: [table] and [[array]] headers,
// bare, quoted and dotted keys, values that span lines inside brackets or multi-line strings.
// Keys inside inline tables get no position of their own; lookups fall back to the
// enclosing key. Paths name elements of arrays of tables by index: "check[1].expect".
func scanPositions(file, src string) map[string]keyPos {
	pos := map[string]keyPos{}
	counts := map[string]int{} // array-of-tables path -> elements seen
	var table string           // current table path, with indices
	depth := 0                 // bracket depth of a value spanning lines
	inML := ""                 // the delimiter of an open multi-line string
	lines := strings.Split(src, "\n")
	for ln, line := range lines {
		lineNo := ln + 1
		if inML != "" || depth > 0 {
			_, depth, inML = skipValue(line, 0, depth, inML)
			continue
		}
		i := skipSpace(line, 0)
		if i >= len(line) || line[i] == '#' || line[i] == '\r' {
			continue
		}
		if line[i] == '[' {
			arr := strings.HasPrefix(line[i:], "[[")
			start := i + 1
			if arr {
				start++
			}
			keys, _ := scanKey(line, start)
			if keys == nil {
				continue
			}
			if arr {
				base := joinPath(resolveTable(keys[:len(keys)-1], counts), keys[len(keys)-1])
				n := counts[base]
				counts[base] = n + 1
				table = base + "[" + strconv.Itoa(n) + "]"
			} else {
				table = resolveTable(keys, counts)
			}
			at := Pos{file, lineNo, runeCol(line, i)}
			pos[table] = keyPos{at, at}
			continue
		}
		keys, end := scanKey(line, i)
		if keys == nil {
			continue
		}
		j := skipSpace(line, end)
		if j >= len(line) || line[j] != '=' {
			continue
		}
		j = skipSpace(line, j+1)
		path := table
		for _, k := range keys {
			path = joinPath(path, k)
			if _, ok := pos[path]; !ok {
				pos[path] = keyPos{Pos{file, lineNo, runeCol(line, i)}, Pos{file, lineNo, runeCol(line, j)}}
			}
		}
		pos[path] = keyPos{Pos{file, lineNo, runeCol(line, i)}, Pos{file, lineNo, runeCol(line, j)}}
		_, depth, inML = skipValue(line, j, 0, "")
	}
	return pos
}

// resolveTable turns a header's keys into a path, naming the latest element of any array
// of tables it passes through: [check.constants] after the second [[check]] is
// "check[1].constants".
func resolveTable(keys []string, counts map[string]int) string {
	path := ""
	for _, k := range keys {
		path = joinPath(path, k)
		if n, ok := counts[path]; ok {
			path += "[" + strconv.Itoa(n-1) + "]"
		}
	}
	return path
}

func joinPath(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "." + b
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// scanKey reads a bare, quoted or dotted key at s[i:]; it returns nil when there is none.
func scanKey(s string, i int) ([]string, int) {
	var keys []string
	for {
		i = skipSpace(s, i)
		if i >= len(s) {
			return nil, i
		}
		switch c := s[i]; {
		case c == '"' || c == '\'':
			j := i + 1
			var b strings.Builder
			for j < len(s) && s[j] != c {
				if c == '"' && s[j] == '\\' && j+1 < len(s) {
					j++
				}
				b.WriteByte(s[j])
				j++
			}
			if j >= len(s) {
				return nil, j
			}
			keys = append(keys, b.String())
			i = j + 1
		case isBare(c):
			j := i
			for j < len(s) && isBare(s[j]) {
				j++
			}
			keys = append(keys, s[i:j])
			i = j
		default:
			return nil, i
		}
		i = skipSpace(s, i)
		if i < len(s) && s[i] == '.' {
			i++
			continue
		}
		return keys, i
	}
}

func isBare(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// skipValue scans a value from s[i:], tracking brackets and strings, and returns the bracket
// depth and open multi-line string delimiter at the end of the line.
func skipValue(s string, i, depth int, inML string) (int, int, string) {
	for i < len(s) {
		if inML != "" {
			k := strings.Index(s[i:], inML)
			if k < 0 {
				return len(s), depth, inML
			}
			i += k + 3
			inML = ""
			continue
		}
		switch c := s[i]; c {
		case '#':
			return len(s), depth, ""
		case '[', '{':
			depth++
		case ']', '}':
			if depth > 0 {
				depth--
			}
		case '"', '\'':
			if strings.HasPrefix(s[i:], `"""`) || strings.HasPrefix(s[i:], `'''`) {
				inML = s[i : i+3]
				i += 3
				continue
			}
			j := i + 1
			for j < len(s) && s[j] != c {
				if c == '"' && s[j] == '\\' {
					j++
				}
				j++
			}
			i = j
		}
		i++
	}
	return i, depth, inML
}

// checkNesting rejects, before the TOML parser sees it, a document nested deeper than
// MaxNesting: inline tables and arrays inside one another, or a key (in a key/value line,
// an inline table or a table header) of more than MaxNesting dotted parts. The parser's
// time grows with the square of the depth. It reports the first place the limit is
// passed, and skips strings and comments; anything it does not understand is left to the
// parser.
func checkNesting(file, src string) *Error {
	line, col := 1, 0
	var stack []byte // open '[' and '{' of values
	inKey := true    // reading a key: at the start of a line or after '{' or ',' in a table
	parts := 1       // dotted parts of the key being read
	lineStart := true
	tooDeep := func() *Error {
		return &Error{Pos: Pos{file, line, col}, Problem: "nested deeper than " + strconv.Itoa(MaxNesting) +
			" levels (inline tables, arrays or the parts of a dotted key)"}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		if utf8.RuneStart(c) {
			col++
		}
		if c == '\n' {
			line, col = line+1, 0
			if len(stack) == 0 {
				inKey, parts, lineStart = true, 1, true
			}
			continue
		}
		if c == ' ' || c == '\t' || c == '\r' {
			continue
		}
		header := lineStart && len(stack) == 0 && c == '['
		lineStart = false
		switch c {
		case '#':
			for i+1 < len(src) && src[i+1] != '\n' {
				i++
			}
		case '"', '\'':
			delim := string(c)
			if strings.HasPrefix(src[i:], strings.Repeat(delim, 3)) {
				delim = strings.Repeat(delim, 3)
			}
			j := i + len(delim)
			for j < len(src) && !strings.HasPrefix(src[j:], delim) {
				if c == '"' && src[j] == '\\' {
					j++
				} else if src[j] == '\n' && len(delim) == 1 {
					break
				}
				j++
			}
			j = min(j+len(delim), len(src))
			// Keep the position right across a multi-line string.
			for k := i + 1; k < j; k++ {
				if utf8.RuneStart(src[k]) {
					col++
				}
				if src[k] == '\n' {
					line, col = line+1, 0
				}
			}
			i = j - 1
		case '[':
			if header {
				// A table header: count the parts of its key, up to its ']'.
				parts = 1
				j := i + 1
				for ; j < len(src) && src[j] != '\n' && src[j] != ']'; j++ {
					switch src[j] {
					case '.':
						if parts++; parts > MaxNesting {
							col += utf8.RuneCountInString(src[i:j])
							return tooDeep()
						}
					case '"', '\'':
						k := strings.IndexAny(src[j+1:], src[j:j+1]+"\n")
						if k < 0 || src[j+1+k] == '\n' {
							return nil // an unterminated string: the parser reports it
						}
						j += k + 1
					}
				}
				col += utf8.RuneCountInString(src[i+1 : j])
				i = j - 1
				inKey = false
				continue
			}
			fallthrough
		case '{':
			if len(stack) >= MaxNesting {
				return tooDeep()
			}
			stack = append(stack, c)
			inKey, parts = c == '{', 1
		case ']', '}':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			inKey = false
		case ',':
			if len(stack) > 0 && stack[len(stack)-1] == '{' {
				inKey, parts = true, 1
			}
		case '=':
			inKey = false
		case '.':
			if inKey {
				if parts++; parts > MaxNesting {
					return tooDeep()
				}
			}
		}
	}
	return nil
}
