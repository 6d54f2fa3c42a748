package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"kmc/app"
	"kmc/specs"
)

const listSynopsis = "kmc list [MODEL]"

const listExamples = `  kmc list
  kmc list twophase
`

func runList(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("list", listSynopsis, listExamples, stdout)
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	fams := specs.Families()
	switch fs.NArg() {
	case 0:
	case 1:
		f, ok := specs.FamilyByName(fs.Arg(0))
		if !ok {
			var names []string
			for _, f := range fams {
				names = append(names, f.Name)
			}
			fmt.Fprintf(stderr, "kmc: list: unknown model %q\n", fs.Arg(0))
			hint(stderr, "the models are: "+strings.Join(names, ", "))
			return exitUsage
		}
		fams = []specs.Family{f}
	default:
		return usageError(stderr, "list", "want at most one model name, got %d arguments", fs.NArg())
	}
	for i, f := range fams {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		writeFamily(stdout, f)
	}
	return exitOK
}

func writeFamily(w io.Writer, f specs.Family) {
	fmt.Fprintf(w, "%s: %s\n", f.Name, f.Doc)
	sym := "no"
	if f.Symmetry {
		sym = "yes (safety"
		if f.LivenessSymmetry {
			sym += " and liveness"
		}
	}
	if f.SymmetryNote != "" {
		sym += map[bool]string{true: "; ", false: " ("}[f.Symmetry] + f.SymmetryNote
	}
	if f.Symmetry || f.SymmetryNote != "" {
		sym += ")"
	}
	fmt.Fprintf(w, "  symmetry reduction: %s\n", sym)
	writeParams(w, "constants", f.Constants)
	writeParams(w, "faults", f.Faults)
	if len(f.Versions) > 0 {
		fmt.Fprintln(w, "  versions (the version constant; fixes turn on more, a check's `without` takes one out):")
		for _, v := range f.Versions {
			if v.Alias != "" {
				continue
			}
			fmt.Fprintf(w, "    %s  %s\n", v.Name, v.Release)
			for _, h := range v.Has {
				fmt.Fprintf(w, "        %s\n", h)
			}
		}
		var lines []string
		for _, v := range f.Versions {
			if v.Alias != "" {
				lines = append(lines, v.Name+" = "+v.Alias)
			}
		}
		if len(lines) > 0 {
			fmt.Fprintf(w, "  release lines (each the latest release of its line): %s\n", strings.Join(lines, ", "))
		}
	}
	for _, t := range []struct {
		title string
		terms []specs.Term
	}{{"variables (as traces print them)", f.Variables}, {"kinds of action (parameters as traces print them)", f.Actions}} {
		if len(t.terms) == 0 {
			continue
		}
		fmt.Fprintf(w, "  %s:\n", t.title)
		for _, x := range t.terms {
			fmt.Fprintf(w, "    %s\n        %s\n", x.Name, x.Doc)
		}
	}
	fmt.Fprintln(w, "  switches (fixes):")
	if len(f.Switches) == 0 {
		fmt.Fprintln(w, "    none")
	}
	for _, s := range f.Switches {
		fmt.Fprintf(w, "    %s\n        %s\n", s.Name, s.Doc)
		if s.Ref != "" {
			fmt.Fprintf(w, "        code: %s\n", s.Ref)
		}
		if s.Versions != "" {
			fmt.Fprintf(w, "        versions: %s\n", s.Versions)
		}
		if len(s.Branches) > 0 {
			fmt.Fprintf(w, "        branches (counted, kmc check --coverage): %s\n", strings.Join(s.Branches, ", "))
		}
	}
	if len(f.Guards) > 0 {
		fmt.Fprintln(w, "  guards (kmc mutate turns one off; a check's `mutate` names those it turns off):")
		for _, g := range f.Guards {
			fmt.Fprintf(w, "    %s\n        %s\n        %s\n", g.Name, g.Doc, g.Ref)
		}
	}
	fmt.Fprintln(w, "  properties:")
	for _, p := range f.Properties {
		ref := ""
		if p.Ref != "" {
			ref = ", " + p.Ref
		}
		fmt.Fprintf(w, "    %s (%s%s)\n        %s\n", p.Name, p.Kind, ref, p.Doc)
	}
}

func writeParams(w io.Writer, title string, ps []specs.Param) {
	fmt.Fprintf(w, "  %s:\n", title)
	if len(ps) == 0 {
		fmt.Fprintln(w, "    none")
	}
	for _, p := range ps {
		var typ string
		switch p.Kind {
		case specs.Int:
			typ = "int " + strconv.Itoa(p.Min) + ".." + strconv.Itoa(p.Max)
		case specs.Bool:
			typ = "bool"
		case specs.Enum:
			typ = strings.Join(p.Enum, "|")
		}
		fmt.Fprintf(w, "    %s: %s, default %s\n        %s\n", p.Name, typ, app.ParamValue(p, p.Default), p.Doc)
	}
}
