package traces

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"kmc/checker"
)

// Files of an output folder, in the order WriteAll lists them.
var outputFiles = []string{"trace.txt", "trace.itf.json", "trace.dot", "trace.svg", "trace.png", "sequence.svg", "sequence.png", "report.html"}

// WriteAll renders t in every format and writes the files trace.txt, trace.itf.json,
// trace.dot, trace.svg, trace.png, sequence.svg, sequence.png and report.html into dir,
// all or nothing:
// everything is rendered first, written into a new temporary folder beside dir, and that
// folder is renamed to dir (a dir left by an earlier run is replaced only once the new one
// is complete). It returns the paths written. info.Spec is the ITF source, info.Check is
// recorded in the ITF metadata, and fullStates prints every variable in trace.txt.
func WriteAll(dir string, t *checker.Trace, info ReportInfo, fullStates bool) ([]string, error) {
	contents, err := renderAll(t, info, fullStates)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", dir, err)
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("write %s: %w", dir, err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", dir, err)
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, fmt.Errorf("write %s: %w", dir, err)
	}
	for i, name := range outputFiles {
		if err := writeFile(filepath.Join(tmp, name), contents[i]); err != nil {
			return nil, fmt.Errorf("write %s: %w", dir, err)
		}
	}
	var old string
	if _, err := os.Lstat(dir); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return nil, fmt.Errorf("write %s: move the previous output aside: %w", dir, err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			os.Rename(old, dir) // put the previous output back
		}
		return nil, fmt.Errorf("write %s: %w", dir, err)
	}
	ok = true
	if old != "" {
		os.RemoveAll(old)
	}
	paths := make([]string, len(outputFiles))
	for i, name := range outputFiles {
		paths[i] = filepath.Join(dir, name)
	}
	return paths, nil
}

func renderAll(t *checker.Trace, info ReportInfo, fullStates bool) ([][]byte, error) {
	var txt, itf, dot, svg, pngb, seq, seqPNG, html bytes.Buffer
	if err := Text(&txt, t, TextOptions{FullStates: fullStates}); err != nil {
		return nil, err
	}
	if err := WriteITF(&itf, t, ITFOptions{Source: info.Spec, Check: info.Check}); err != nil {
		return nil, err
	}
	if err := DOT(&dot, t); err != nil {
		return nil, err
	}
	if err := RenderDOT(&svg, dot.Bytes(), "svg", ""); err != nil {
		return nil, err
	}
	if err := RenderDOT(&pngb, dot.Bytes(), "png", ""); err != nil {
		return nil, err
	}
	if err := SequenceSVG(&seq, t); err != nil {
		return nil, err
	}
	if err := SequencePNG(&seqPNG, t); err != nil {
		return nil, err
	}
	if err := HTML(&html, t, info); err != nil {
		return nil, err
	}
	return [][]byte{txt.Bytes(), itf.Bytes(), dot.Bytes(), svg.Bytes(), pngb.Bytes(), seq.Bytes(), seqPNG.Bytes(), html.Bytes()}, nil
}

// writeFile writes data to path and checks Close.
func writeFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr != nil {
		return werr
	}
	return cerr
}
