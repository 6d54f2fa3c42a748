package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"kmc/traces"
)

// viewFlagHelp is the help of --view, for check, simulate and render.
const viewFlagHelp = "print the model's tables `NAME[,NAME]` after each trace state (kafka: logs, epochCaches, controlPlane), all, or none (default: the spec's [options] view, else the views its properties read)"

// resolveViews is the view selection of --view, or def when the flag is not given. Each
// name given must be one of names (the views the model or the trace has), "all" or "none";
// a bad name is an error that lists them.
func resolveViews(fs *pflag.FlagSet, value string, names []string, def string) (traces.ViewSelection, error) {
	if !fs.Changed("view") {
		return traces.ParseViewSelection(def), nil
	}
	sel := traces.ParseViewSelection(value)
	for _, n := range sel {
		if n == traces.ViewsAll || slices.Contains(names, n) {
			continue
		}
		if n == "none" {
			return nil, fmt.Errorf("--view: none goes alone (got %q)", value)
		}
		known := "this model has no views"
		if len(names) > 0 {
			known = "want " + strings.Join(names, ", ") + ", all or none"
		}
		return nil, fmt.Errorf("--view: unknown view %q: %s", n, known)
	}
	return sel, nil
}
