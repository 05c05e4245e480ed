package main

import (
	"database/sql"
	"fmt"

	_ "github.com/duckdb/duckdb-go/v2"
	_ "github.com/olekukonko/tablewriter"
	_ "github.com/rogpeppe/go-internal/testscript"
	_ "github.com/urfave/cli/v2"
	_ "github.com/xeipuuv/gojsonschema"
)

func main() {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		panic(err)
	}
	var v string
	db.QueryRow("SELECT version()").Scan(&v)
	fmt.Println(v)
}
