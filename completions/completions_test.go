package completions_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var (
	binDir string // holds the traineectl and traineed built for the tests
	bin    string // traineectl
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "traineectl-completions-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir, bin = dir, filepath.Join(dir, "traineectl")
	for _, prog := range []string{"traineectl", "traineed"} {
		build := exec.Command("go", "build", "-o", filepath.Join(dir, prog), "../cmd/"+prog)
		build.Env = append(os.Environ(), "CGO_ENABLED=0") // as released, and as .ci/run's other builds
		out, err := build.CombinedOutput()
		if err != nil {
			fmt.Fprintf(os.Stderr, "build %s: %v\n%s", prog, err, out)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// files are traineectl's scripts by shell.
var files = map[string]string{
	"bash":       "traineectl.bash",
	"zsh":        "_traineectl",
	"fish":       "traineectl.fish",
	"powershell": "traineectl.ps1",
}

// The committed scripts are what the command trees generate; run
// `go generate ./completions` when this fails.
func TestScriptsAreUpToDate(t *testing.T) {
	for _, prog := range []string{"traineectl", "traineed"} {
		for shell, name := range files {
			name = strings.ReplaceAll(name, "traineectl", prog)
			want, err := exec.Command(filepath.Join(binDir, prog), "completion", shell).Output()
			if err != nil {
				t.Fatalf("%s completion %s: %v", prog, shell, err)
			}
			got, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("completions/%s is stale: run `go generate ./completions`", name)
			}
		}
	}
}

func needBash(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	return p
}

func TestBashSyntax(t *testing.T) {
	out, err := exec.Command(needBash(t), "-n", files["bash"]).CombinedOutput()
	if err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
}

// completeInBash loads the script in a non-interactive bash, with the test's
// traineectl first on PATH, and asks it to complete line (the cursor at its
// end). Without the bash-completion package (as on the test machine) the
// script's own word splitter is used.
func completeInBash(t *testing.T, line string, env ...string) []string {
	t.Helper()
	words := strings.Fields(line)
	if strings.HasSuffix(line, " ") {
		words = append(words, "")
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = "'" + w + "'"
	}
	script := fmt.Sprintf(`
source %q
COMP_LINE=%q
COMP_POINT=${#COMP_LINE}
COMP_WORDS=(%s)
COMP_CWORD=%d
__start_traineectl traineectl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%%s\n' "${COMPREPLY[@]}"
`, files["bash"], line, strings.Join(quoted, " "), len(words)-1)
	cmd := exec.Command(needBash(t), "--norc", "--noprofile", "-c", script)
	cmd.Env = append(os.Environ(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, stderr.String())
	}
	var got []string
	for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if l != "" {
			got = append(got, l)
		}
	}
	return got
}

func TestBashCompletesCommands(t *testing.T) {
	env := []string{"TRAINEECTL_BASE_URL=http://127.0.0.1:1", "XDG_CONFIG_HOME=" + t.TempDir()}
	if got := completeInBash(t, "traineectl ge", env...); strings.Join(got, ",") != "get" {
		t.Errorf("traineectl ge<TAB> gave %q, want get", got)
	}
	got := completeInBash(t, "traineectl search --status ", env...)
	if strings.Join(got, ",") != "live,active,expired,deleted,all" {
		t.Errorf("--status values: %q", got)
	}
	got = completeInBash(t, "traineectl get 4 -o j", env...)
	if strings.Join(got, ",") != "json" {
		t.Errorf("-o j: %q", got)
	}
	// No server: no ids, and no file names either.
	if got := completeInBash(t, "traineectl get ", env...); len(got) != 0 {
		t.Errorf("ids without a server: %q", got)
	}
}

func TestBashCompletesTraineeIDs(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/public-api/trainees/search" || r.Header.Get("X-API-Key") != "pk_test" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, `{"timestamp":1,"content":[{"id":41,"name":"Ada Park"},{"id":42,"name":"Bo Li"},{"id":7,"name":"Cy"}],"page":{"size":100,"number":0,"totalElements":3,"totalPages":1}}`)
	}))
	defer srv.Close()
	env := []string{"TRAINEECTL_BASE_URL=" + srv.URL, "TRAINEECTL_API_KEY=pk_test", "XDG_CONFIG_HOME=" + t.TempDir()}
	// COMP_TYPE 63 is bash listing the choices (the second Tab): with descriptions.
	got := completeInBash(t, "traineectl weight 4", append(env, "COMP_TYPE=63", "COLUMNS=80")...)
	if len(got) != 2 || !strings.HasPrefix(got[0], "41") || !strings.Contains(got[0], "(Ada Park)") || !strings.HasPrefix(got[1], "42") {
		t.Errorf("traineectl weight 4<TAB> gave %q", got)
	}
	if got := completeInBash(t, "traineectl delete 7", env...); strings.Join(got, ",") != "7" {
		t.Errorf("one match: %q", got)
	}
}
