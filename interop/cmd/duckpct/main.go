// Command duckpct runs one DuckDB query and prints its single value; the
// README's side-by-side figures time it with /usr/bin/time -v:
//
//	duckpct "SELECT quantile_cont(t, 0.99) FROM (SELECT unnest(ttfts) AS t ... FROM read_json('big.json', maximum_object_size = 2000000000))"
package main

import (
	"database/sql"
	"fmt"
	"os"

	_ "github.com/duckdb/duckdb-go/v2"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: duckpct QUERY")
		os.Exit(2)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer db.Close()
	var v any
	if err := db.QueryRow(os.Args[1]).Scan(&v); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(v)
}
