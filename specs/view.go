package specs

import (
	"slices"
	"strconv"
	"strings"
)

// badView says what is wrong with value as a spec's [options] view, or "" when it is
// good: "all", "none", or names of the family's views (names) separated by commas.
func badView(value string, names []string) string {
	want := "want a view of the model (" + strings.Join(names, ", ") + "), names separated by commas, all or none"
	if len(names) == 0 {
		return "this model has no views"
	}
	switch strings.TrimSpace(value) {
	case "all", "none":
		return ""
	case "":
		return "empty: " + want
	}
	for _, n := range strings.Split(value, ",") {
		n = strings.TrimSpace(n)
		if n == "all" || n == "none" {
			return n + " goes alone: " + want
		}
		if !slices.Contains(names, n) {
			return "unknown view " + strconv.Quote(n) + ": " + want
		}
	}
	return ""
}

// propertyView is the views that props read (PropertyInfo.Views), in the family's order
// (names), joined by commas; or "" when they name none.
func propertyView(fam *Family, props []string) string {
	reads := map[string]bool{}
	for _, p := range props {
		for _, info := range fam.Properties {
			if info.Name == p {
				for _, v := range info.Views {
					reads[v] = true
				}
			}
		}
	}
	var out []string
	for _, n := range fam.Views {
		if reads[n] {
			out = append(out, n)
		}
	}
	return strings.Join(out, ",")
}

// resolveView sets s.View (see Spec.View) and makes it the default of s's copy of its
// family, which --view's default reads.
func (s *Spec) resolveView() {
	if !s.ViewSet {
		s.View = propertyView(&s.Family, s.Properties)
		if s.View == "" {
			s.View = s.Family.DefaultView
		}
	}
	if s.View == "none" {
		s.View = ""
	}
	s.Family.DefaultView = s.View
}
