package schemas

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/verdict-llm/verdict/internal/yamlin"
)

// An Inventory describes the system under test of a run. Few tools record
// it, so users supply it (see [LoadInventory]); capture fills what it can
// measure. An empty field means unknown: nothing is guessed.
type Inventory struct {
	Model         string `json:"model"`
	ModelRevision string `json:"model_revision"`
	Quantization  string `json:"quantization"`
	// Reasoning says how the model's reasoning reaches the client (see
	// ReasoningModes): "none" (the model emits none), "split" (the server
	// sends it apart, as reasoning_content) or "inline" (inside the answer
	// text). With none or inline a tool's answer-only TTFT and TPOT time
	// the same tokens as its all-output ones.
	Reasoning     string     `json:"reasoning,omitempty"`
	Engine        string     `json:"engine"`
	EngineVersion string     `json:"engine_version"`
	LaunchArgs    []string   `json:"launch_args"`
	GPUModel      string     `json:"gpu_model"`
	GPUCount      Opt[int64] `json:"gpu_count"`
	// Parallelism is how the model is split over the GPUs, e.g.
	// "tp=8 dp=1 pp=1 ep=1"; several components are joined with "; ".
	Parallelism    string     `json:"parallelism,omitempty"`
	Driver         string     `json:"driver"`
	CUDA           string     `json:"cuda"`
	Image          string     `json:"container_image"`
	Dataset        string     `json:"dataset"`
	DatasetSHA256  string     `json:"dataset_sha256"`
	Endpoint       string     `json:"endpoint"`
	ClientLocation string     `json:"client_location"`
	CacheState     string     `json:"cache_state"` // see CacheStates
	WarmupRequests Opt[int64] `json:"warmup_requests"`
	ResourceIDs    []string   `json:"resource_ids"` // cloud resource IDs billed for the run
	// TimeZone is the IANA name (Area/City) of the zone of the clock the
	// benchmark tool read, for tools that write local times without a
	// zone (vLLM's date): with it such a run has a window a bill can be
	// joined to.
	TimeZone string `json:"time_zone,omitempty"`
}

// Reasoning modes: the values Inventory.Reasoning may take besides "".
const (
	ReasoningNone   = "none"
	ReasoningSplit  = "split"
	ReasoningInline = "inline"
)

// ReasoningModes lists the reasoning modes.
var ReasoningModes = []string{ReasoningNone, ReasoningSplit, ReasoningInline}

// CacheStates are the values Inventory.CacheState may take besides "".
var CacheStates = []string{"cold", "warm", "reset"}

// InventoryFields lists the inventory's fields with their display names, in
// display order; renderers iterate over it so that every field, known or
// not, is shown.
func (inv Inventory) Fields() [][2]string {
	opt := func(o Opt[int64]) string {
		if !o.OK {
			return ""
		}
		return fmt.Sprint(o.V)
	}
	return [][2]string{
		{"model", inv.Model},
		{"model revision", inv.ModelRevision},
		{"quantization", inv.Quantization},
		{"reasoning", inv.Reasoning},
		{"engine", inv.Engine},
		{"engine version", inv.EngineVersion},
		{"launch args", strings.Join(inv.LaunchArgs, " ")},
		{"GPU model", inv.GPUModel},
		{"GPU count", opt(inv.GPUCount)},
		{"parallelism", inv.Parallelism},
		{"driver", inv.Driver},
		{"CUDA", inv.CUDA},
		{"container image", inv.Image},
		{"dataset", inv.Dataset},
		{"dataset SHA-256", inv.DatasetSHA256},
		{"endpoint", inv.Endpoint},
		{"client location", inv.ClientLocation},
		{"cache state", inv.CacheState},
		{"warm-up requests", opt(inv.WarmupRequests)},
		{"resource IDs", strings.Join(inv.ResourceIDs, " ")},
	}
}

// inventoryFile is the YAML layout users write:
//
//	model: {name: meta-llama/Llama-3.1-8B-Instruct, revision: 0e9e39f, quantization: fp8, reasoning: none}
//	engine: {name: vllm, version: 0.11.0, launch_args: [--max-num-seqs, "256"]}
//	gpu: {model: NVIDIA H100 80GB HBM3, count: 1, driver: 550.54.15, cuda: "12.4", parallelism: tp=1}
//	container_image: vllm/vllm-openai:v0.11.0
//	dataset: {name: sharegpt, sha256: 9f86d08...}
//	endpoint: http://10.0.0.5:8000/v1/completions
//	client_location: same availability zone
//	cache_state: cold
//	warmup_requests: 10
//	cloud: {resource_ids: [i-0abc123]}
//	time_zone: Europe/Berlin
type inventoryFile struct {
	Model struct {
		Name         string `yaml:"name"`
		Revision     string `yaml:"revision"`
		Quantization string `yaml:"quantization"`
		Reasoning    string `yaml:"reasoning"`
	} `yaml:"model"`
	Engine struct {
		Name       string   `yaml:"name"`
		Version    string   `yaml:"version"`
		LaunchArgs []string `yaml:"launch_args"`
	} `yaml:"engine"`
	GPU struct {
		Model string `yaml:"model"`
		Count *int64 `yaml:"count"`
		// Parallelism, e.g. "tp=8 pp=1".
		Parallelism string `yaml:"parallelism"`
		Driver      string `yaml:"driver"`
		CUDA        string `yaml:"cuda"`
	} `yaml:"gpu"`
	Image   string `yaml:"container_image"`
	Dataset struct {
		Name   string `yaml:"name"`
		SHA256 string `yaml:"sha256"`
	} `yaml:"dataset"`
	Endpoint       string `yaml:"endpoint"`
	ClientLocation string `yaml:"client_location"`
	CacheState     string `yaml:"cache_state"`
	WarmupRequests *int64 `yaml:"warmup_requests"`
	Cloud          struct {
		ResourceIDs []string `yaml:"resource_ids"`
	} `yaml:"cloud"`
	TimeZone string `yaml:"time_zone"`
}

// LoadInventory reads a system-under-test YAML file (layout in the
// inventoryFile comment and in the README). Unknown or duplicated keys are
// errors naming the line, so that a typo never silently drops a fact.
func LoadInventory(path string) (Inventory, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Inventory{}, err
	}
	return ParseInventory(path, data)
}

// ParseInventory is LoadInventory on bytes; name is used in errors.
func ParseInventory(name string, data []byte) (Inventory, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return Inventory{}, fmt.Errorf("%s: empty inventory file", name)
	}
	var f inventoryFile
	if err := yamlin.Decode(name, data, &f); err != nil {
		return Inventory{}, err
	}
	inv := Inventory{
		Model: f.Model.Name, ModelRevision: f.Model.Revision, Quantization: f.Model.Quantization, Reasoning: f.Model.Reasoning,
		Engine: f.Engine.Name, EngineVersion: f.Engine.Version, LaunchArgs: f.Engine.LaunchArgs,
		GPUModel: f.GPU.Model, Driver: f.GPU.Driver, CUDA: f.GPU.CUDA, Parallelism: f.GPU.Parallelism,
		Image:   f.Image,
		Dataset: f.Dataset.Name, DatasetSHA256: strings.ToLower(f.Dataset.SHA256),
		Endpoint: f.Endpoint, ClientLocation: f.ClientLocation, CacheState: f.CacheState,
		ResourceIDs: f.Cloud.ResourceIDs, TimeZone: f.TimeZone,
	}
	if inv.TimeZone != "" {
		if _, err := time.LoadLocation(inv.TimeZone); err != nil || inv.TimeZone == "Local" {
			return Inventory{}, fmt.Errorf("%s: time_zone %q is not an IANA time zone name such as Europe/Berlin or UTC", name, inv.TimeZone)
		}
	}
	if f.GPU.Count != nil {
		if *f.GPU.Count < 1 {
			return Inventory{}, fmt.Errorf("%s: gpu.count must be at least 1, got %d", name, *f.GPU.Count)
		}
		inv.GPUCount = Some(*f.GPU.Count)
	}
	if f.WarmupRequests != nil {
		if *f.WarmupRequests < 0 {
			return Inventory{}, fmt.Errorf("%s: warmup_requests must not be negative, got %d", name, *f.WarmupRequests)
		}
		inv.WarmupRequests = Some(*f.WarmupRequests)
	}
	if inv.CacheState != "" && !slices.Contains(CacheStates, inv.CacheState) {
		return Inventory{}, fmt.Errorf("%s: cache_state %q is not one of %s", name, inv.CacheState, strings.Join(CacheStates, ", "))
	}
	if inv.Reasoning != "" && !slices.Contains(ReasoningModes, inv.Reasoning) {
		return Inventory{}, fmt.Errorf("%s: model.reasoning %q is not one of %s", name, inv.Reasoning, strings.Join(ReasoningModes, ", "))
	}
	if s := inv.DatasetSHA256; s != "" && !isHex(s, 64) {
		return Inventory{}, fmt.Errorf("%s: dataset.sha256 %q is not 64 hex digits", name, s)
	}
	return inv, nil
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
