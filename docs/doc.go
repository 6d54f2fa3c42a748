// Package docs holds kmc's documentation (the Markdown files of this folder) and the test that
// keeps its examples true: every ```console block of README.md and docs/*.md is run with a kmc
// built from this tree, and its output compared with what the block shows (examples_test.go).
// After a change of kmc's output, refresh the examples with
//
//	go test ./docs/ -run Examples -update
//
// and read the diff before committing it.
package docs
