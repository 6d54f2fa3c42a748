package cgraph

import (
	"context"

	"github.com/goccy/go-graphviz/internal/wasm"
)

// kmc patch: these package variables copy enum values that the WebAssembly module defines.
// Upstream set them at package initialisation, after internal/wasm's init had instantiated
// the module; with the module instantiated on first use (internal/wasm/lazy.go) they are
// copied again once it is, or every fill, pen and render feature would be zero.
func init() {
	wasm.OnInit(func(context.Context) error {
		GRAPH = ObjectTag(wasm.GRAPH)
		NODE = ObjectTag(wasm.NODE)
		OUTEDGE = ObjectTag(wasm.OUT_EDGE)
		INEDGE = ObjectTag(wasm.IN_EDGE)
		EDGE = ObjectTag(wasm.EDGE)
		return nil
	})
}
