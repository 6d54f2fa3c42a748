package app

// Building and running the conformance harness (conformance/, a Maven module) for one Kafka
// release: Maven compiles the harness and resolves the release's jars from Maven Central, java
// runs it on a file of steps and writes a file of observed states. Nothing is linked: the two
// sides talk through those files, in a temporary folder removed afterwards.

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// errSetup is a problem with the machine or the input, not with Kafka's behaviour: exit 2.
type errSetup struct{ msg string }

func (e *errSetup) Error() string { return e.msg }

func setupErr(format string, args ...any) error { return &errSetup{fmt.Sprintf(format, args...)} }

// releasePattern is a Kafka release number as Maven Central names it.
var releasePattern = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`)

// findHarness is the conformance/ folder: dir when given, else the first conformance/pom.xml
// in the working folder or one of its parents.
func findHarness(dir string) (string, error) {
	if dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "pom.xml")); err != nil {
			return "", setupErr("--harness %s: no pom.xml there (the harness is the repository's conformance/ folder)", dir)
		}
		return filepath.Abs(dir)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "conformance", "pom.xml")); err == nil {
			return filepath.Join(d, "conformance"), nil
		}
		if filepath.Dir(d) == d {
			return "", setupErr("no conformance/pom.xml in %s or its parents: run kmc conform from the kmc repository, or give --harness DIR", wd)
		}
	}
}

// checkTools reports a missing java or mvn, saying what to install.
func checkTools() error {
	var missing []string
	if _, err := exec.LookPath("java"); err != nil {
		missing = append(missing, "java (a JDK 17 or later: apt-get install openjdk-17-jdk-headless)")
	}
	if _, err := exec.LookPath("mvn"); err != nil {
		missing = append(missing, "mvn (Apache Maven 3.8 or later: apt-get install maven)")
	}
	if len(missing) > 0 {
		return setupErr("kmc conform runs Kafka's classes on a JVM and needs on PATH: %s", strings.Join(missing, "; "))
	}
	return nil
}

// harness is a built harness for one release: its classes and the release's classpath.
type harness struct {
	dir, release, classes, classpath string
}

// buildHarness compiles the harness and resolves release's jars (Maven's download log goes to
// log), unless a previous build left its classpath file. An unserved release is exit 2.
func buildHarness(dir, release string, log io.Writer) (*harness, error) {
	if !releasePattern.MatchString(release) {
		return nil, setupErr("--kafka %q: a Kafka release is three numbers, such as 4.1.1", release)
	}
	h := &harness{dir: dir, release: release, classes: filepath.Join(dir, "target", "classes")}
	cpFile := filepath.Join(dir, "target", "classpath-"+release+".txt")
	if data, err := os.ReadFile(cpFile); err == nil && !harnessStale(dir, filepath.Join(h.classes, "kmc", "conformance", "Main.class")) {
		h.classpath = strings.TrimSpace(string(data))
		return h, nil
	}
	cmd := exec.Command("mvn", "-B", "-f", filepath.Join(dir, "pom.xml"), "-Dkafka.version="+release,
		"compile", "dependency:build-classpath", "-Dmdep.includeScope=runtime", "-Dmdep.outputFile="+cpFile)
	var out strings.Builder
	cmd.Stdout = io.MultiWriter(log, &out)
	cmd.Stderr = io.MultiWriter(log, &out)
	fmt.Fprintf(log, "kmc conform: building the harness for Kafka %s: %s\n", release, strings.Join(cmd.Args, " "))
	if err := cmd.Run(); err != nil {
		text := out.String()
		if strings.Contains(text, "Could not resolve dependencies") || strings.Contains(text, "Could not find artifact") ||
			strings.Contains(text, "was not found in") {
			return nil, setupErr("Kafka %s: Maven Central does not serve org.apache.kafka:kafka_2.13:%s (the harness runs 3.9.1 and later releases Maven serves)", release, release)
		}
		return nil, fmt.Errorf("building the harness for Kafka %s failed (mvn: %v); Maven's output is above", release, err)
	}
	data, err := os.ReadFile(cpFile)
	if err != nil {
		return nil, fmt.Errorf("building the harness: %w", err)
	}
	h.classpath = strings.TrimSpace(string(data))
	return h, nil
}

// harnessStale reports whether the harness's compiled classes (main, a class file of the
// build) are missing or older than its sources or pom.xml, so that an edited harness is
// built again before it runs.
func harnessStale(dir, main string) bool {
	built, err := os.Stat(main)
	if err != nil {
		return true
	}
	stale := false
	check := func(path string) {
		if fi, err := os.Stat(path); err == nil && fi.ModTime().After(built.ModTime()) {
			stale = true
		}
	}
	check(filepath.Join(dir, "pom.xml"))
	_ = filepath.WalkDir(filepath.Join(dir, "src", "main"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			check(path)
		}
		return nil
	})
	return stale
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// run runs the harness on in and returns its output lines by trace.
func (h *harness) run(in harnessInput, stderr io.Writer) ([][]observed, error) {
	res := make([][]observed, len(in.Traces))
	k := 0
	err := h.stream(func() (*harnessTrace, bool) {
		if k == len(in.Traces) {
			return nil, false
		}
		k++
		return &in.Traces[k-1], true
	}, func(i int, lines []observed) error {
		if i >= len(res) {
			return fmt.Errorf("harness output: trace %d out of range", i)
		}
		res[i] = lines
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// stream runs the harness in one JVM on the traces next gives, one JSON line each on its
// standard input, and hands done each trace's output lines as they come, in order. next is
// called from another goroutine.
func (h *harness) stream(next func() (*harnessTrace, bool), done func(i int, lines []observed) error) error {
	tmp, err := os.MkdirTemp(scratchDir(), "kmc-conform-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command("java", "-XX:+EnableDynamicAgentLoading", "-Xshare:off",
		"-Djava.io.tmpdir="+tmp, "-cp", h.classes+string(os.PathListSeparator)+h.classpath,
		"kmc.conformance.Main", "--stream")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var errOut strings.Builder
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting java: %w", err)
	}
	keep := os.Getenv("KMC_CONFORM_INPUT") // for debugging the harness: a copy of its input
	var keepFile *os.File
	if keep != "" {
		if keepFile, err = os.Create(keep); err != nil {
			return err
		}
		defer keepFile.Close()
		fmt.Fprint(keepFile, `{"traces":[`)
	}
	writeErr := make(chan error, 1)
	go func() {
		w := bufio.NewWriter(stdin)
		var err error
		for n := 0; err == nil; n++ {
			t, ok := next()
			if !ok {
				break
			}
			var data []byte
			if data, err = json.Marshal(t); err != nil {
				break
			}
			if keepFile != nil {
				if n > 0 {
					keepFile.WriteString(",")
				}
				keepFile.Write(data)
			}
			if _, err = w.Write(append(data, '\n')); err == nil {
				err = w.Flush()
			}
		}
		if keepFile != nil {
			keepFile.WriteString("]}")
		}
		stdin.Close()
		writeErr <- err
	}()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var lines []observed
	var firstErr error
	var record *os.File // for the tests' recorded harness output: a copy of the lines
	if p := os.Getenv("KMC_CONFORM_RECORD"); p != "" {
		if record, err = os.Create(p); err != nil {
			return err
		}
		defer record.Close()
	}
	for sc.Scan() {
		if record != nil {
			record.Write(append(sc.Bytes(), '\n'))
		}
		var o observed
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			firstErr = fmt.Errorf("harness output: %v", err)
			break
		}
		if !o.End {
			lines = append(lines, o)
			continue
		}
		if err := done(o.Trace, lines); err != nil && firstErr == nil {
			firstErr = err
		}
		lines = nil
	}
	if firstErr != nil {
		cmd.Process.Kill()
	}
	io.Copy(io.Discard, stdout)
	runErr := cmd.Wait()
	if err := <-writeErr; err != nil && firstErr == nil && runErr == nil {
		firstErr = fmt.Errorf("writing to the harness: %w", err)
	}
	if firstErr != nil {
		return firstErr
	}
	if runErr != nil {
		return fmt.Errorf("the harness failed (java: %v): %s", runErr, tail(errOut.String()))
	}
	return nil
}

// scratchDir is where the harness's folders go: $KMC_CONFORM_TMP, else /dev/shm where it is a
// writable folder (the brokers' logs and checkpoints are fsynced on every epoch-cache change;
// in memory that costs nothing), else the system's temporary folder.
func scratchDir() string {
	if d := os.Getenv("KMC_CONFORM_TMP"); d != "" {
		return d
	}
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if f, err := os.CreateTemp("/dev/shm", ".kmc-probe-"); err == nil {
			f.Close()
			os.Remove(f.Name())
			return "/dev/shm"
		}
	}
	return ""
}

// tail is the last lines of s, for an error message.
func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	var keep []string
	for _, l := range lines {
		if !strings.Contains(l, "Sharing is only supported") && !strings.Contains(l, "WARNING") {
			keep = append(keep, l)
		}
	}
	if len(keep) > 10 {
		keep = keep[len(keep)-10:]
	}
	return strings.Join(keep, "\n")
}

var errNoOutput = errors.New("no output")
