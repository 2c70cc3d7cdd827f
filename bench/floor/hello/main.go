// Command hello is a floor for bench/run.sh: the cheapest static Go
// process, which prints one line and exits.
package main

import "os"

func main() { os.Stdout.WriteString("hello\n") }
