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
	if data, err := os.ReadFile(cpFile); err == nil && fileExists(filepath.Join(h.classes, "kmc", "conformance", "Main.class")) {
		h.classpath = strings.TrimSpace(string(data))
		return h, nil
	}
	cmd := exec.Command("mvn", "-B", "-f", filepath.Join(dir, "pom.xml"), "-Dkafka.version="+release,
		"compile", "dependency:build-classpath", "-Dmdep.outputFile="+cpFile)
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

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// run runs the harness on in and returns its output lines by trace. stderr gets the JVM's
// own error output.
func (h *harness) run(in harnessInput, stderr io.Writer) ([][]observed, error) {
	tmp, err := os.MkdirTemp("", "kmc-conform-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	inPath, outPath := filepath.Join(tmp, "input.json"), filepath.Join(tmp, "output.jsonl")
	data, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(inPath, data, 0o600); err != nil {
		return nil, err
	}
	if keep := os.Getenv("KMC_CONFORM_INPUT"); keep != "" {
		// For debugging the harness: a copy of its input, to run it alone.
		if err := os.WriteFile(keep, data, 0o600); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command("java", "-XX:+EnableDynamicAgentLoading", "-Xshare:off",
		"-Djava.io.tmpdir="+tmp, "-cp", h.classes+string(os.PathListSeparator)+h.classpath,
		"kmc.conformance.Main", inPath, outPath)
	var errOut strings.Builder
	cmd.Stdout = &errOut
	cmd.Stderr = &errOut
	runErr := cmd.Run()
	f, err := os.Open(outPath)
	if err != nil {
		return nil, fmt.Errorf("the harness wrote no output (java: %v): %s", runErr, tail(errOut.String()))
	}
	defer f.Close()
	res := make([][]observed, len(in.Traces))
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var o observed
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			return nil, fmt.Errorf("harness output: %v", err)
		}
		if o.Trace < 0 || o.Trace >= len(res) {
			return nil, fmt.Errorf("harness output: trace %d out of range", o.Trace)
		}
		res[o.Trace] = append(res[o.Trace], o)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if runErr != nil {
		return res, fmt.Errorf("the harness failed (java: %v): %s", runErr, tail(errOut.String()))
	}
	return res, nil
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
