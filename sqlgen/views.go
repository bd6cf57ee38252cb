package sqlgen

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/verdict-llm/verdict/schemas"
)

// tableColumns are the columns of each table the script reads; the Trino
// script declares only these (Trino's Hive connector reads Parquet columns
// by name, so the others may stay undeclared).
var tableColumns = map[string][]string{
	schemas.TableRuns:     {"streaming", "duration_s", "window_kind", "flags"},
	schemas.TableRequests: {"index", "status", "phase", "queue_s", "ttft_s", "ttft_answer_s", "e2e_s", "input_tokens", "output_tokens", "reasoning_tokens", "chunk_gaps_s"},
	schemas.TableMetrics:  {"metric_id", "stat", "percentile", "value", "source", "dimension"},
}

// sourceTables are the tables in the order the script declares them.
var sourceTables = []string{schemas.TableRuns, schemas.TableRequests, schemas.TableMetrics}

// sources declares verdict_runs, verdict_requests and verdict_metrics
// over the dataset's partitions.
func (g *script) sources() {
	g.comment("The dataset's tables: every partition file of each table.")
	switch g.d {
	case DuckDB:
		g.comment("hive_partitioning = false: run_id and tool come from the files, as strings, whatever the",
			"directory names look like; union_by_name merges files written by different verdict versions.")
	case Spark:
		g.comment("Partition values stay strings (a run ID that looks like a number is still a string);",
			"run_id and tool are both file columns and partition columns, with the same values.")
		g.printf("SET spark.sql.sources.partitionColumnTypeInference.enabled = false;\n")
	case Trino:
		g.comment("Trino reads the dataset through its Hive connector: external tables over the partition",
			"directories (tool and run_id are their partition columns), declaring only the columns the",
			"views read. sync_partition_metadata registers the runs exported since the last call: run",
			"this script again after each verdict export.")
		schema := g.o.TrinoSchema[strings.Index(g.o.TrinoSchema, ".")+1:]
		g.printf("CREATE SCHEMA IF NOT EXISTS %s;\n", g.o.TrinoSchema)
		for _, t := range sourceTables {
			if g.tables[t] {
				g.trinoTable(t, schema)
			}
		}
		g.b.WriteString("\n")
		return
	}
	for _, t := range sourceTables {
		if !g.tables[t] {
			g.comment(fmt.Sprintf("(the dataset has no %s files; the script does without verdict_%s)", t, t))
			continue
		}
		dir := g.o.Dataset + "/table=" + t
		switch g.d {
		case DuckDB:
			g.printf("%s\nSELECT * FROM read_parquet(%s, hive_partitioning = false, union_by_name = true);\n",
				g.d.createView(g.o, "verdict_"+t), g.d.literal(dir+"/**/*.parquet"))
		case Spark:
			g.printf("CREATE OR REPLACE TEMPORARY VIEW verdict_%s\nUSING parquet OPTIONS (path %s, mergeSchema 'true');\n", t, g.d.literal(dir))
		}
	}
	g.b.WriteString("\n")
}

// trinoTable declares one table of the dataset in Trino.
func (g *script) trinoTable(table, schema string) {
	sch, _ := schemas.SchemaOf(table)
	var cols []string
	for _, c := range tableColumns[table] {
		f := sch.Field(sch.FieldIndices(c)[0])
		cols = append(cols, "  "+g.d.ident(c)+" "+trinoType(f.Type))
	}
	cols = append(cols, "  tool VARCHAR", "  run_id VARCHAR")
	name := "verdict_" + table
	g.printf("CREATE TABLE IF NOT EXISTS %s (\n%s\n)\nWITH (format = 'PARQUET', external_location = %s, partitioned_by = ARRAY['tool', 'run_id']);\n",
		g.d.view(g.o, name), strings.Join(cols, ",\n"), g.d.literal(g.o.Dataset+"/table="+table))
	catalog := g.o.TrinoSchema[:strings.Index(g.o.TrinoSchema, ".")]
	g.printf("CALL %s.system.sync_partition_metadata(schema_name => %s, table_name => %s, mode => 'FULL');\n",
		catalog, g.d.literal(schema), g.d.literal(name))
}

// trinoType maps the Arrow types of the columns the script reads.
func trinoType(t arrow.DataType) string {
	switch t.ID() {
	case arrow.STRING:
		return "VARCHAR"
	case arrow.INT64:
		return "BIGINT"
	case arrow.FLOAT64:
		return "DOUBLE"
	case arrow.BOOL:
		return "BOOLEAN"
	case arrow.LIST:
		return "ARRAY(" + trinoType(t.(*arrow.ListType).Elem()) + ")"
	}
	panic("sqlgen: no Trino type for " + t.String())
}

// viewName is the view of a definition.
func viewName(id schemas.MetricID) string { return "verdict_" + string(id) }

// definitionView writes the view of one request-level definition.
func (g *script) definitionView(def schemas.MetricDef, sd definition) {
	d := g.d
	changes, uncertain, notes := flagsOf(inputsOf(def.ID, sd.columns))
	g.comment(fmt.Sprintf("%s: %s, in %s (registry version %d).", def.ID, def.Name, def.Unit, schemas.RegistryVersion), def.Summary()+".")
	if sd.note != "" {
		g.comment("As SQL: " + sd.note + ".")
	}
	if len(changes) > 0 {
		g.comment("Refused: runs flagged " + strings.Join(changes, ", ") + ".")
	}
	if len(uncertain) > 0 {
		g.comment("Marked in uncertain_flags: " + strings.Join(uncertain, ", ") + ".")
	}
	for _, n := range notes {
		g.comment("  " + n)
	}
	value := sd.value(d)
	from := "FROM " + d.view(g.o, "verdict_requests") + " q\nJOIN " + d.view(g.o, "verdict_runs") + " r ON r.run_id = q.run_id"
	where := []string{"q.phase = " + d.literal(schemas.PhaseProfiling)}
	if sd.status != "" {
		where = append(where, "q.status = "+d.literal(sd.status))
	}
	if sd.streamed {
		where = append(where, "coalesce(r.streaming, true)")
	}
	for _, c := range sd.columns {
		where = append(where, "q."+c+" IS NOT NULL")
	}
	if sd.where != nil {
		where = append(where, sd.where(d)...)
	}
	if sd.chunks {
		from += "\n" + d.unnest(value, "g")
		value = "g.value"
		where = append(where, "g.value IS NOT NULL")
	}
	if len(changes) > 0 {
		where = append(where, "NOT coalesce("+d.overlaps("r.flags", changes)+", false)")
	}
	flags := d.emptyStrings()
	if len(uncertain) > 0 {
		flags = "coalesce(" + d.intersect("r.flags", uncertain) + ", " + d.emptyStrings() + ")"
	}
	g.printf("%s\nSELECT q.run_id, r.tool, q.%s AS request_index, %s AS value,\n  %s AS definition_id, %s AS unit, %d AS registry_version,\n  %s AS uncertain_flags\n%s\nWHERE %s;\n\n",
		d.createView(g.o, viewName(def.ID)), d.ident("index"), value, d.literal(string(def.ID)), d.literal(def.Unit), schemas.RegistryVersion,
		flags, from, strings.Join(where, "\n  AND "))
}

// refusals lists, per run, the definitions whose rows the views refuse
// and the flags why.
func (g *script) refusals() {
	d := g.d
	g.comment("Runs whose version flags change a definition: the definition's view has no rows of them.")
	var parts []string
	for _, def := range schemas.Registry() {
		sd, ok := definitions[def.ID]
		if !ok {
			continue
		}
		changes, _, _ := flagsOf(inputsOf(def.ID, sd.columns))
		if len(changes) == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("SELECT r.run_id, r.tool, %s AS definition_id, %s AS flags, %d AS registry_version\nFROM %s r\nWHERE coalesce(%s, false)",
			d.literal(string(def.ID)), d.intersect("r.flags", changes), schemas.RegistryVersion, d.view(g.o, "verdict_runs"), d.overlaps("r.flags", changes)))
	}
	g.printf("%s\n%s;\n\n", d.createView(g.o, "verdict_refusals"), strings.Join(parts, "\nUNION ALL\n"))
}

// observations is the long form of the definitions verdict_stats holds.
func (g *script) observations() {
	d := g.d
	g.comment("The observations verdict_stats summarises: " + strings.Join(idStrings(g.o.Metrics), ", ") + ".")
	var parts []string
	for _, id := range g.o.Metrics {
		parts = append(parts, "SELECT run_id, definition_id AS metric_id, value FROM "+d.view(g.o, viewName(id)))
	}
	g.printf("%s\n%s;\n\n", d.createView(g.o, "verdict_observations"), strings.Join(parts, "\nUNION ALL\n"))
}
