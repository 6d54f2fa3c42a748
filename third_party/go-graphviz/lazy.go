package graphviz

import "github.com/goccy/go-graphviz/internal/wasm"

// Init instantiates Graphviz's WebAssembly module, with wazero's compilation cache in
// cacheDir ("" for none). kmc patch: go-graphviz v0.2.10 did this in a package init
// function, cached in os.TempDir()/go-graphviz, and panicked on failure. Calling Init is
// optional: New, NewWithPlugins, ParseBytes, ParseFile and Graph call it with
// DefaultCacheDir when no Init has succeeded. A failure may be retried.
func Init(cacheDir string) error { return wasm.Init(cacheDir) }

// DefaultCacheDir is the user's own cache folder for go-graphviz (os.UserCacheDir, then
// "go-graphviz"), or "" when the user has none.
func DefaultCacheDir() string { return wasm.DefaultCacheDir() }
