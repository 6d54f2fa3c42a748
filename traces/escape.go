package traces

import (
	"io"
	"strconv"
	"unicode/utf8"
)

// A trace read from a file is untrusted: its action, variable and actor names, its values
// and its metadata may hold characters that a terminal acts on (an escape sequence sets
// the window title or clears the screen), that XML 1.0 forbids (an SVG or HTML page that
// holds one does not parse) or that Graphviz chokes on (NUL). Every renderer writes them
// as visible escapes: Text and the views' tables through visibleWriter, the pictures
// through quote, htmlEscape and esc, which call Visible, the ITF and the HTML report's data
// as JSON escapes (escapeJSON).

// hidden reports whether r is written as an escape: a C0 or C1 control character or DEL
// (tab and newline included: they would break a line or a table), one of Unicode's
// bidirectional formatting characters (which reorder what follows them), a line or
// paragraph separator, or a noncharacter XML does not allow (U+FFFE, U+FFFF).
func hidden(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r < 0xa0:
		return true
	case r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x2028, r == 0x2029, r == 0xfffe, r == 0xffff:
		return true
	}
	return false
}

// Visible returns s with every hidden character (see hidden) written as a Go-style
// escape: \n, \t, \x1b, \u202e; and every byte that is not UTF-8 as \xff. A string that
// needs none is returned as it is, without allocating. For the CLI, which prints a trace's
// names in its messages.
func Visible(s string) string { return visible(s, false) }

// visible is Visible, keeping newlines when lines is set (for text made of lines).
func visible(s string, lines bool) string {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || hidden(r) && !(lines && r == '\n') {
			return string(appendVisible(append([]byte(nil), s[:i]...), s[i:], lines))
		}
		i += n
	}
	return s
}

// appendVisible appends s to buf with its hidden characters escaped.
func appendVisible(buf []byte, s string, lines bool) []byte {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			buf = append(buf, `\x`...)
			buf = appendHex(buf, uint32(s[i]), 2)
		case !hidden(r) || lines && r == '\n':
			buf = append(buf, s[i:i+n]...)
		case r == '\n':
			buf = append(buf, `\n`...)
		case r == '\t':
			buf = append(buf, `\t`...)
		case r == '\r':
			buf = append(buf, `\r`...)
		case r < 0x80:
			buf = append(buf, `\x`...)
			buf = appendHex(buf, uint32(r), 2)
		default:
			buf = append(buf, `\u`...)
			buf = appendHex(buf, uint32(r), 4)
		}
		i += n
	}
	return buf
}

func appendHex(buf []byte, v uint32, digits int) []byte {
	h := strconv.FormatUint(uint64(v), 16)
	for range digits - len(h) {
		buf = append(buf, '0')
	}
	return append(buf, h...)
}

// visibleWriter writes text to w with every hidden character but the newline escaped (see
// Visible). A character split between two writes is held until the next one (or Flush).
type visibleWriter struct {
	w    io.Writer
	buf  []byte
	tail []byte // the start of a character that the last write cut
}

func (v *visibleWriter) Write(p []byte) (int, error) {
	n := len(p)
	if len(v.tail) > 0 {
		p = append(v.tail, p...)
		v.tail = nil
	}
	// Hold back an incomplete character at the end: it may be completed by the next write.
	cut := len(p)
	for k := 1; k <= utf8.UTFMax-1 && k <= len(p); k++ {
		if c := p[len(p)-k]; utf8.RuneStart(c) {
			if !utf8.FullRune(p[len(p)-k:]) {
				cut = len(p) - k
			}
			break
		}
	}
	v.tail = append(v.tail, p[cut:]...)
	v.buf = appendVisible(v.buf[:0], string(p[:cut]), true)
	if _, err := v.w.Write(v.buf); err != nil {
		return 0, err
	}
	return n, nil
}

// Flush writes what is held: the start of a character never completed, escaped.
func (v *visibleWriter) Flush() error {
	if len(v.tail) == 0 {
		return nil
	}
	v.buf = appendVisible(v.buf[:0], string(v.tail), true)
	v.tail = nil
	_, err := v.w.Write(v.buf)
	return err
}

// escapeJSON rewrites JSON text so that it holds no hidden character: encoding/json
// escapes the C0 controls, invalid UTF-8 and U+2028, U+2029 inside strings but leaves
// DEL, the C1 controls, the bidirectional formatting characters and U+FFFE, U+FFFF as they
// are. Outside strings JSON is ASCII, so each of those is inside one and becomes a \u
// escape that decodes to the same character.
func escapeJSON(data []byte) []byte {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if hidden(r) && r >= 0x20 {
			out := append([]byte(nil), data[:i]...)
			for j := i; j < len(data); {
				r, n := utf8.DecodeRune(data[j:])
				if hidden(r) && r >= 0x20 {
					out = append(out, `\u`...)
					out = appendHex(out, uint32(r), 4)
				} else {
					out = append(out, data[j:j+n]...)
				}
				j += n
			}
			return out
		}
		i += n
	}
	return data
}
