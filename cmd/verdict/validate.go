package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/render"
	"github.com/verdict-llm/verdict/validate"
)

func validateCommand() *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Usage:     "check bundles, and whether their runs may be compared at all",
		ArgsUsage: "BUNDLE...",
		Description: `Runs the validation rules (verdict rules lists them) over the runs of each
BUNDLE and prints a verdict with every finding and its evidence: run,
metric, field and values.

Without --compare each bundle is judged on its own: valid, incomplete (the
evidence to decide is missing: inventory, window, scenario, failure
counts) or invalid. With --compare the runs of every two groups are paired
(same load point first) and the comparison is judged: comparable,
comparable with warnings, incomplete or not comparable. Groups are the
bundles, or what --group-by says: run, tool, label:KEY or sut:FIELD. Runs
of one group must share the system under test.

The exit status is the gate: 0 when the verdict passes, 1 when it does not
(an error; an unverified error unless the policy allows incomplete
results; a warning the policy's fail_on_warnings lists), 2 on usage or
input errors. --policy FILE (YAML) sets thresholds and the gate; see the
validate package documentation for its keys.

Examples:
   verdict validate runs.bundle
   verdict validate --compare h100.bundle mi300x.bundle
   verdict validate --compare --group-by label:platform all.bundle
   verdict validate --compare --format markdown a.bundle b.bundle >> "$GITHUB_STEP_SUMMARY"
   verdict validate --policy ci-policy.yaml --junit validate.xml runs.bundle
   verdict validate --rules V001,V002,V004 --compare a.bundle b.bundle
   verdict validate --disable V019-unmaintained-tool --format json runs.bundle | jq .verdict`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "compare", Aliases: []string{"c"}, Usage: "compare the runs of every two groups (pair rules)"},
			&cli.StringFlag{Name: "group-by", Aliases: []string{"g"}, Value: "bundle", Usage: "what one configuration is: bundle, run, tool, label:KEY or sut:FIELD"},
			&cli.StringSliceFlag{Name: "rules", Usage: "run only these rules (`ID,...`, e.g. V001,V004-metric-definition)"},
			&cli.StringSliceFlag{Name: "disable", Usage: "turn rules off (`ID,...`)"},
			&cli.StringFlag{Name: "policy", Usage: "policy `FILE` (YAML): thresholds, required inventory, which warnings fail the gate", TakesFile: true},
			&cli.StringFlag{Name: "junit", Usage: "also write JUnit XML to `FILE` (one test case per rule and run, group or pair)", TakesFile: true},
			formatFlag("table"),
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() == 0 {
				return usage("validate: give at least one BUNDLE")
			}
			f, err := render.ParseFormat(cmd.String("format"))
			if err != nil {
				return usage("%v", err)
			}
			opts := validate.Options{Compare: cmd.Bool("compare"), GroupBy: cmd.String("group-by"),
				Rules: cmd.StringSlice("rules"), Disable: cmd.StringSlice("disable")}
			if path := cmd.String("policy"); path != "" {
				p, err := validate.LoadPolicy(path)
				if err != nil {
					return usage("--policy: %v", err)
				}
				opts.Policy = &p
			}
			rep, err := analysis.Validate(ctx, cmd.Args().Slice(), opts)
			if err != nil {
				return err
			}
			if err := render.WriteValidate(cmd.Root().Writer, f, rep); err != nil {
				return err
			}
			if path := cmd.String("junit"); path != "" {
				if err := render.WriteJUnitFile(path, rep); err != nil {
					return fmt.Errorf("--junit: %w", err)
				}
			}
			if !rep.Pass {
				return fmt.Errorf("validate: %s: %w", rep.Verdict.Text(), errGate)
			}
			return nil
		},
	}
}

func rulesCommand() *cli.Command {
	return &cli.Command{
		Name:  "rules",
		Usage: "print the validation rules with their severities and rationales",
		Description: `Prints the catalogue of verdict validate: each rule's stable ID, severity
(error, warning or info), scope (a run, a group of runs, a pair of
compared runs), title and the reason it exists.

Examples:
   verdict rules
   verdict rules --format markdown > RULES.md
   verdict rules --format json | jq '.rules[] | select(.severity == "error") | .id'`,
		Flags: []cli.Flag{formatFlag("table")},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() != 0 {
				return usage("rules takes no arguments")
			}
			f, err := render.ParseFormat(cmd.String("format"))
			if err != nil {
				return usage("%v", err)
			}
			return render.WriteRules(cmd.Root().Writer, f)
		},
	}
}
