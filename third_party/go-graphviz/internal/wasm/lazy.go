package wasm

// kmc patch: go-graphviz v0.2.10 instantiates its WebAssembly module in a package init
// function, with a compilation cache in os.TempDir()/go-graphviz. Every program that links
// it pays for that at start-up, and panics before main when the cache folder belongs to
// another user or holds a corrupt file. Here the module is instantiated on first use (Init),
// with the cache folder the caller names, and a failure is an error that may be retried.

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

var (
	initMu    sync.Mutex
	initDone  bool
	initHooks []func(context.Context) error
	pendingFS fs.FS // SetWasmFileSystem before Init
)

// OnInit registers f to run after the module is instantiated, in registration order. It is
// for the package init functions of go-graphviz's own packages (cgraph, gvc, graphviz),
// whose former init-time work needs the module.
func OnInit(f func(context.Context) error) { initHooks = append(initHooks, f) }

// Init instantiates the Graphviz module once, with its compilation cache in cacheDir (""
// for none). It returns nil at once when the module is ready. After a failure nothing is
// kept, and Init may be called again (with another cacheDir, say).
func Init(cacheDir string) (err error) {
	initMu.Lock()
	defer initMu.Unlock()
	if initDone {
		return nil
	}
	ctx := context.Background()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("graphviz: start the WebAssembly module: %v", r)
		}
		if err != nil {
			mod = nil
		}
	}()
	instantiate(ctx, cacheDir)
	if pendingFS != nil {
		mod.fs.subFS = pendingFS
	}
	for _, f := range initHooks {
		if err := f(ctx); err != nil {
			return fmt.Errorf("graphviz: initialise: %w", err)
		}
	}
	initDone = true
	return nil
}

// Ready reports whether Init has succeeded.
func Ready() bool {
	initMu.Lock()
	defer initMu.Unlock()
	return initDone
}

// Ensure instantiates the module, when no Init has succeeded yet, with the compilation
// cache in DefaultCacheDir.
func Ensure() error {
	if Ready() {
		return nil
	}
	return Init(DefaultCacheDir())
}

// DefaultCacheDir is the user's own cache folder for go-graphviz (os.UserCacheDir, then
// "go-graphviz"), or "" when the user has none.
func DefaultCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "go-graphviz")
}
