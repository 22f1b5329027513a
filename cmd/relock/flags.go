package main

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/relock-go/relock/rlock"
)

// commonFlags returns a flag set called name with the flags of every
// command, bound to o.
func commonFlags(name string, o *options) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // run reports parse errors, once
	o.conn.register(fs)
	fs.BoolVar(&o.json, "json", false, "print JSON")
	return fs
}

// splitGlobal splits the flags before the command ("relock --addr H:P
// inspect NAME") from the rest of args, which begins with the command.
// Only the flags of every command may come first; the command parses
// them again, as if they followed it.
func splitGlobal(args []string) (global, rest []string, err error) {
	if !strings.HasPrefix(args[0], "-") || slices.Contains([]string{"-h", "-help", "--help", "--version"}, args[0]) {
		return nil, args, nil
	}
	fs := commonFlags("relock", &options{})
	if err := fs.Parse(args); err != nil {
		return nil, nil, err
	}
	rest = fs.Args()
	global = slices.Clone(args[:len(args)-len(rest)])
	if len(global) > 0 && global[len(global)-1] == "--" {
		global = global[:len(global)-1]
	}
	return global, rest, nil
}

// parseInterspersed parses the flags in args wherever they are among the
// arguments, which it returns: package flag alone stops at the first
// argument. After "--" everything is an argument.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// kindFlag registers --kind, of inspect and watch.
func kindFlag(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.kind, "kind", "", "the `KIND` of NAME: "+kindList)
}

// kindList names the --kind values, for the help and the errors.
var kindList = func() string {
	names := make([]string, len(flagKinds))
	for i, k := range flagKinds {
		names[i] = string(k)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}()

// checkKind refuses a --kind that is not one of flagKinds.
func checkKind(o *options) error {
	if o.kind != "" && !slices.Contains(flagKinds, rlock.Kind(o.kind)) {
		return usageError{fmt.Sprintf("--kind %q: want %s", o.kind, kindList)}
	}
	return nil
}

// dashFlag finds a flag named with one dash in package flag's messages.
var dashFlag = regexp.MustCompile(`(^| )-[a-z]`)

// dashes writes the flags named in a message of package flag with two
// dashes, as relock's help names them: "flag provided but not defined:
// --bogus".
func dashes(msg string) string {
	return dashFlag.ReplaceAllStringFunc(msg, func(m string) string {
		i := strings.LastIndexByte(m, '-')
		return m[:i] + "-" + m[i:]
	})
}
