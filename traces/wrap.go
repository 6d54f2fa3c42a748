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
// depth depth (0 outside any bracket); runes is the number of runes before pos.
type breakPoint struct {
	pos, depth, runes int
}

// breakPoints scans a value printed by Value.String (or any text) for the places a line
// may break. Brackets are [ ], { }, ( ), << and >>; a string is "..." with backslash
// escapes, and nothing inside it is a break point or a bracket. Unbalanced input is
// tolerated: depth never goes below 0 and an unterminated string runs to the end.
func breakPoints(s string) []breakPoint {
	var out []breakPoint
	depth := 0
	last, runes := 0, 0 // runes before s[last:]
	add := func(pos int) {
		runes += utf8.RuneCountInString(s[last:pos])
		last = pos
		out = append(out, breakPoint{pos: pos, depth: depth, runes: runes})
	}
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
			add(i + 1)
		case c == '@' && i+2 < len(s) && s[i+1] == '@' && s[i+2] == ' ' && i > 0 && s[i-1] == ' ':
			add(i + 2)
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
// It takes time linear in the length of value: the rune counts come from breakPoints, and
// each line looks only at the break points that it can hold, and the first one past it.
func wrapLine(head, value string, width int) []string {
	col := utf8.RuneCountInString(head)
	indent := col
	if indent > maxHangIndent {
		indent = fallbackIndent
	}
	pad := strings.Repeat(" ", indent)
	bps := breakPoints(value)
	total := utf8.RuneCountInString(value)
	lines := []string{}
	line := head
	// value[start:] is left to lay out, beginning at rune rstart; bps[next:] lie in it.
	start, rstart, next := 0, 0, 0
	for {
		if col+total-rstart <= width || next == len(bps) {
			return append(lines, line+value[start:])
		}
		best := -1
		for j := next; j < len(bps); j++ {
			if col+bps[j].runes-rstart > width {
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
		// The space after the separator is dropped: one byte, one rune.
		start, rstart, next = bps[best].pos+1, bps[best].runes+1, best+1
		line, col = pad, indent
	}
}
