package explore

import (
	"bytes"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"

	"kmc/traces"
)

// The HTTP API. Every answer is JSON but the page and the sequence chart; an error is
// {"error": "..."} with status 400 (the request's fault: a malformed or unknown path, a
// state with no such successor, a bad trace or predicate), 403 (no or a wrong token, a
// Host that is not loopback), 405, 409 (a search already running) or 413 (a body too
// large).
//
//	GET  /                  the page
//	GET  /api/model         the model and the check: variables, kinds of action, properties, guards, bounds
//	GET  /api/state         ?path=0.3.1[&at=N][&back=L.K][&stutter=1]: state N of the path (default the last)
//	GET  /api/sequence      the same parameters: the sequence chart up to state N, as SVG
//	POST /api/search        SearchRequest as JSON: the engine's shortest path from a state to a goal
//	POST /api/trace         an ITF trace: the path it takes through the model (Loaded)
//
// Every request carries the token when the server has one (header X-Kmc-Token, or the
// query parameter token); a POST must carry the header X-Kmc-Request, which a form on
// another site cannot send, so that no page elsewhere can make the server work.

//go:embed web
var webFiles embed.FS

// Handler is the server's HTTP handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/", s.page)
	mux.HandleFunc("/api/model", s.get(func(w http.ResponseWriter, r *http.Request) { writeJSON(w, http.StatusOK, s.info) }))
	mux.HandleFunc("/api/state", s.get(s.apiState))
	mux.HandleFunc("/api/sequence", s.get(s.apiSequence))
	mux.HandleFunc("/api/search", s.post(s.apiSearch))
	mux.HandleFunc("/api/trace", s.post(s.apiTrace))
	return s.guard(mux)
}

// guard refuses a request that lacks the token or, on loopback, names another host, and
// sets the headers every answer carries: nothing is loaded from elsewhere, nothing framed.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-store")
		if s.opts.Loopback && !loopbackHost(r.Host) {
			writeError(w, http.StatusForbidden, fmt.Errorf("host %q is not a loopback address: open the URL kmc explore printed", cut(r.Host, 60)))
			return
		}
		if s.opts.Token != "" {
			got := r.Header.Get("X-Kmc-Token")
			if got == "" {
				got = r.URL.Query().Get("token")
			}
			if subtle.ConstantTimeCompare([]byte(got), []byte(s.opts.Token)) != 1 {
				writeError(w, http.StatusForbidden, errors.New("no or a wrong token: open the URL kmc explore printed, with its token"))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether a Host header names this machine's loopback interface.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (s *Server) get(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeError(w, http.StatusMethodNotAllowed, fmt.Errorf("%s: want GET", r.URL.Path))
			return
		}
		h(w, r)
	}
}

func (s *Server) post(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			writeError(w, http.StatusMethodNotAllowed, fmt.Errorf("%s: want POST", r.URL.Path))
			return
		}
		if r.Header.Get("X-Kmc-Request") == "" {
			writeError(w, http.StatusForbidden, fmt.Errorf("%s: the header X-Kmc-Request is missing (the page sends it)", r.URL.Path))
			return
		}
		h(w, r)
	}
}

// page serves the page: web/index.html with its style and script (and traces' view
// tables') inlined, so that it is one answer and needs nothing else.
func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		writeError(w, http.StatusNotFound, fmt.Errorf("%s: not found", cut(r.URL.Path, 60)))
		return
	}
	html, _ := webFiles.ReadFile("web/index.html")
	css, _ := webFiles.ReadFile("web/explore.css")
	js, _ := webFiles.ReadFile("web/explore.js")
	page := strings.NewReplacer(
		"/*{{CSS}}*/", string(css)+"\n"+traces.ViewTableCSS,
		"/*{{JS}}*/", traces.PageErrorJS+"\n"+traces.ViewTableJS+"\n"+string(js),
	).Replace(string(html))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	io.WriteString(w, page)
}

// pathOf reads the path parameters of a GET request and takes the path; at is the state
// asked for (default the last).
func (s *Server) pathOf(r *http.Request) (*walked, int, error) {
	q := r.URL.Query()
	p, err := parsePath(q.Get("path"), q.Get("back"), q.Get("stutter"))
	if err != nil {
		return nil, 0, err
	}
	w, err := s.walk(p)
	if err != nil {
		return nil, 0, err
	}
	at := len(w.states)
	if a := q.Get("at"); a != "" {
		n, err := strconv.Atoi(a)
		if err != nil || n < 1 || n > len(w.states) {
			return nil, 0, fmt.Errorf("at: want a state of the path, 1..%d (got %q)", len(w.states), cut(a, 20))
		}
		at = n
	}
	return w, at, nil
}

func (s *Server) apiState(w http.ResponseWriter, r *http.Request) {
	wk, at, err := s.pathOf(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	v, err := s.state(wk, at)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func (s *Server) apiSequence(w http.ResponseWriter, r *http.Request) {
	wk, at, err := s.pathOf(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	var buf bytes.Buffer
	if err := s.sequence(wk, at, &buf); err != nil {
		writeError(w, statusOf(err), err)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Write(buf.Bytes())
}

func (s *Server) apiSearch(w http.ResponseWriter, r *http.Request) {
	var req SearchRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxPathBytes+MaxPredicateBytes+1024))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeError(w, bodyStatus(err), fmt.Errorf("search: %w", err))
		return
	}
	a, err := s.Search(r.Context(), req)
	if err != nil {
		writeError(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, a)
}

func (s *Server) apiTrace(w http.ResponseWriter, r *http.Request) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxTraceBytes))
	if err != nil {
		writeError(w, bodyStatus(err), fmt.Errorf("trace: %w", err))
		return
	}
	l, err := s.LoadITF(data)
	if err != nil {
		writeError(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, l)
}

// statusOf is the HTTP status of an error: 400 for the request's, 409 for a search while
// another runs, 500 otherwise.
func statusOf(err error) int {
	var bad badRequest
	switch {
	case errors.As(err, &bad):
		return http.StatusBadRequest
	case errors.Is(err, errBusy):
		return http.StatusConflict
	}
	return http.StatusInternalServerError
}

func bodyStatus(err error) int {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusBadRequest
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(data)
}

func writeError(w http.ResponseWriter, status int, err error) {
	data, _ := json.Marshal(map[string]string{"error": err.Error()})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(data)
}
