package mcpserver_test

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The committed corpus of FuzzToolArguments gives every tool calls that
// succeed and calls that are rejected, so that fuzzing starts next to
// valid arguments for each of them and the placeholders still lead to
// real rooms, leases and turns.
func TestFuzzToolArgumentsCorpus(t *testing.T) {
	const minRejected = 4
	dir := filepath.Join("testdata", "fuzz", "FuzzToolArguments")
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fw := newFuzzWorld(t)
	succeeded := map[string]int{}
	rejected := map[string]int{}
	for _, file := range files {
		sel, args, err := readCorpusEntry(filepath.Join(dir, file.Name()))
		if err != nil {
			t.Fatalf("%s: %v", file.Name(), err)
		}
		out := fw.run(t, sel, args)
		if !out.sent {
			t.Errorf("%s: the arguments are not JSON, so nothing was called: %s", file.Name(), args)
			continue
		}
		t.Logf("%s: %s", file.Name(), cmp.Or(out.code, "ok"))
		if out.code == "" {
			succeeded[out.tool]++
		} else {
			rejected[out.tool]++
		}
	}
	for _, tool := range toolNames {
		if succeeded[tool] == 0 || rejected[tool] < minRejected {
			t.Errorf("%s: the corpus has %d calls that succeed and %d that are rejected; want at least 1 and %d",
				tool, succeeded[tool], rejected[tool], minRejected)
		}
	}
}

// readCorpusEntry reads one file of the fuzzing corpus ("go test fuzz v1",
// then one Go expression per argument: byte(...) and []byte(...)).
func readCorpusEntry(path string) (byte, []byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 3 || lines[0] != "go test fuzz v1" {
		return 0, nil, fmt.Errorf("want the header and two arguments, got %d lines", len(lines))
	}
	selLit, err := corpusLiteral(lines[1], "byte")
	if err != nil {
		return 0, nil, err
	}
	argsLit, err := corpusLiteral(lines[2], "[]byte")
	if err != nil {
		return 0, nil, err
	}
	var sel byte
	switch selLit.Kind {
	case token.CHAR:
		r, _, _, err := strconv.UnquoteChar(selLit.Value[1:len(selLit.Value)-1], '\'')
		if err != nil || r > 255 {
			return 0, nil, fmt.Errorf("bad byte %s", selLit.Value)
		}
		sel = byte(r)
	case token.INT:
		n, err := strconv.ParseUint(selLit.Value, 0, 8)
		if err != nil {
			return 0, nil, err
		}
		sel = byte(n)
	default:
		return 0, nil, fmt.Errorf("bad byte %s", selLit.Value)
	}
	args, err := strconv.Unquote(argsLit.Value)
	if err != nil {
		return 0, nil, fmt.Errorf("bad []byte %s: %v", argsLit.Value, err)
	}
	return sel, []byte(args), nil
}

// corpusLiteral parses line as a conversion to typ of one literal.
func corpusLiteral(line, typ string) (*ast.BasicLit, error) {
	e, err := parser.ParseExpr(line)
	if err != nil {
		return nil, err
	}
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return nil, fmt.Errorf("%s: want %s(literal)", line, typ)
	}
	var fun strings.Builder
	switch f := call.Fun.(type) {
	case *ast.Ident:
		fun.WriteString(f.Name)
	case *ast.ArrayType:
		if id, ok := f.Elt.(*ast.Ident); ok && f.Len == nil {
			fun.WriteString("[]" + id.Name)
		}
	}
	lit, ok := call.Args[0].(*ast.BasicLit)
	if fun.String() != typ || !ok {
		return nil, fmt.Errorf("%s: want %s(literal)", line, typ)
	}
	return lit, nil
}
