package traces

import (
	"strings"
	"unicode/utf8"
)

// textWidth is the column at which Text wraps a line (TextOptions.FullStates aside).
const textWidth = 100

// maxHangIndent is the deepest column continuation lines hang at: a value that starts
// further right continues at column fallbackIndent instead, so that it keeps room to wrap.
const (
	maxHangIndent  = 50
	fallbackIndent = 6
)

// breakPoint is a place where wrapLine may end a line: at pos, a space that follows a
// separator (", " between elements and fields, " @@ " between map entries), at nesting
// depth depth (0 outside any bracket).
type breakPoint struct {
	pos, depth int
}

// breakPoints scans a value printed by Value.String (or any text) for the places a line
// may break. Brackets are [ ], { }, ( ), << and >>; a string is "..." with backslash
// escapes, and nothing inside it is a break point or a bracket. Unbalanced input is
// tolerated: depth never goes below 0 and an unterminated string runs to the end.
func breakPoints(s string) []breakPoint {
	var out []breakPoint
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case c == '[' || c == '{' || c == '(':
			depth++
		case c == ']' || c == '}' || c == ')':
			depth = max(depth-1, 0)
		case c == '<' && i+1 < len(s) && s[i+1] == '<':
			depth++
			i++
		case c == '>' && i+1 < len(s) && s[i+1] == '>':
			depth = max(depth-1, 0)
			i++
		case c == ',' && i+1 < len(s) && s[i+1] == ' ':
			out = append(out, breakPoint{pos: i + 1, depth: depth})
		case c == '@' && i+2 < len(s) && s[i+1] == '@' && s[i+2] == ' ' && i > 0 && s[i-1] == ' ':
			out = append(out, breakPoint{pos: i + 2, depth: depth})
		}
	}
	return out
}

// wrapLine lays out head followed by value in lines of at most width columns (runes).
// The first line starts with head; continuation lines hang under the start of the value
// (at column len(head)), or at column fallbackIndent when the value starts past column
// maxHangIndent. A line ends only at a break point (see breakPoints): after a "," or
// "@@", the space that follows dropped. Of the break points that keep a line within
// width, wrapLine takes one at the shallowest nesting depth, and of those the last, so
// that a value breaks between its top-level elements where it can and fills its lines
// deeper down where it must. When none fits, the line runs to the first break point after
// width, or to the end: a long string or number is never split.
//
// The lines, continuation indents removed and joined with single spaces, are head+value.
func wrapLine(head, value string, width int) []string {
	col := utf8.RuneCountInString(head)
	indent := col
	if indent > maxHangIndent {
		indent = fallbackIndent
	}
	pad := strings.Repeat(" ", indent)
	bps := breakPoints(value)
	lines := []string{}
	line := head
	start, next := 0, 0 // value[start:] is left to lay out; bps[next:] lie in it
	for {
		rest := value[start:]
		if col+utf8.RuneCountInString(rest) <= width || next == len(bps) {
			return append(lines, line+rest)
		}
		best := -1
		for j := next; j < len(bps); j++ {
			if col+utf8.RuneCountInString(value[start:bps[j].pos]) > width {
				break
			}
			if best < 0 || bps[j].depth <= bps[best].depth {
				best = j
			}
		}
		if best < 0 {
			best = next // nothing fits: the shortest overlong line
		}
		lines = append(lines, line+value[start:bps[best].pos])
		start, next = bps[best].pos+1, best+1
		line, col = pad, indent
	}
}
