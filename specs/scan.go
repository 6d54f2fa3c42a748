package specs

import (
	"strconv"
	"strings"
)

// Pos is a position in a spec file (or in a --set argument): 1-based line and column.
type Pos struct {
	File string
	Line int
	Col  int
}

func (p Pos) String() string {
	return p.File + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col)
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
			at := Pos{file, lineNo, i + 1}
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
				pos[path] = keyPos{Pos{file, lineNo, i + 1}, Pos{file, lineNo, j + 1}}
			}
		}
		pos[path] = keyPos{Pos{file, lineNo, i + 1}, Pos{file, lineNo, j + 1}}
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
