package app

import (
	"errors"
	"fmt"
	"strings"

	"kmc/specs"
)

// Errors that refuse an operation's input, beside a spec's own errors (specs.ErrorList).
// Each says what failed in the spec's words, without the command line's: a caller that
// takes flags names them itself.

// UnknownCheckError is a check name that the spec does not have.
type UnknownCheckError struct {
	Spec   string   // the spec's path
	Name   string   // the name asked for
	Checks []string // the spec's checks
}

func (e *UnknownCheckError) Error() string {
	return fmt.Sprintf("%s has no check %q%s", e.Spec, e.Name, specs.DidYouMean(e.Name, e.Checks))
}

// NoCheckError is a spec with several checks where an operation needs one and none was
// named.
type NoCheckError struct {
	Spec   string
	Checks []string
}

func (e *NoCheckError) Error() string {
	return fmt.Sprintf("%s has %d checks: name one (%s)", e.Spec, len(e.Checks), strings.Join(e.Checks, ", "))
}

// ModelError is a configuration that the model refuses (min_isr above brokers, a
// cross-field rule of the model): the model's own words.
type ModelError struct {
	Model string // the spec's model, whose parameters the caller may list
	Err   error
}

func (e *ModelError) Error() string { return e.Err.Error() }
func (e *ModelError) Unwrap() error { return e.Err }

// NoSymmetryError is SymmetryOn for a model that has no symmetry reduction.
type NoSymmetryError struct {
	Model string
	Note  string // why, when the family says (specs.Family.SymmetryNote)
}

func (e *NoSymmetryError) Error() string {
	return "model " + e.Model + " has no symmetry reduction" + specs.Because(e.Note)
}

// ErrCoverageResumed refuses Coverage with Resume of a checkpoint whose search did not count
// the steps taken: coverage counts a whole search.
var ErrCoverageResumed = errors.New("coverage counts a whole search, and the checkpoint's search did not count it (it ran without --coverage): resume it without --coverage, or start over with it")

// UnknownNameError is a guard or fix switch that the model does not have.
type UnknownNameError struct {
	What  string // "guard", "fix switch"
	Model string
	Name  string
	Known []string
}

func (e *UnknownNameError) Error() string {
	return fmt.Sprintf("model %s has no %s %q%s", e.Model, e.What, e.Name, specs.DidYouMean(e.Name, e.Known))
}

// Reason is why a configuration is invalid, without the positions of the --set
// arguments that made it: the spec loader's problems, or the model's own words.
func Reason(err error) string {
	var list specs.ErrorList
	if errors.As(err, &list) {
		msgs := make([]string, len(list))
		for i, e := range list {
			msgs[i] = e.Problem
			if e.Key != "" {
				msgs[i] = e.Key + ": " + msgs[i]
			}
			if e.Got != "" {
				msgs[i] += " (got " + e.Got + ")"
			}
		}
		return strings.Join(msgs, "; ")
	}
	for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(err) {
		err = u
	}
	return err.Error()
}
