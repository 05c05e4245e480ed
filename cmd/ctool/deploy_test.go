package main

// The deployment examples of docs/deploy hold to the binary: the compose file and the Kubernetes
// manifests parse as YAML, their ctool command lines are ctool's (every flag and value accepted by the
// real command), the compose file's replicas run as written against a store on this machine and answer
// the health check the file names, and the probes, ports and grace periods agree with the command line.

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"gopkg.in/yaml.v3"
)

const deployDir = "../../docs/deploy"

type composeFile struct {
	Services map[string]struct {
		Build struct {
			Context    string `yaml:"context"`
			Dockerfile string `yaml:"dockerfile"`
		} `yaml:"build"`
		Image       string   `yaml:"image"`
		Command     []string `yaml:"command"`
		Healthcheck struct {
			Test []string `yaml:"test"`
		} `yaml:"healthcheck"`
		StopGracePeriod string `yaml:"stop_grace_period"`
	} `yaml:"services"`
	Configs map[string]struct {
		Content string `yaml:"content"`
	} `yaml:"configs"`
}

// flagValue is the value of --name in args ("" if absent).
func flagValue(args []string, name string) string {
	if i := slices.Index(args, "--"+name); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

// acceptedByCtool runs the command line with --help: ctool parses every flag and value first, so a
// flag it does not have, or a value it cannot read, fails.
func acceptedByCtool(t *testing.T, where string, args []string) {
	t.Helper()
	if len(args) == 0 {
		t.Fatalf("%s: no command line", where)
	}
	if code, out := runChild(t, append(slices.Clone(args), "--help")...); code != 0 || !strings.Contains(out, "ctool "+args[0]) {
		t.Errorf("%s: ctool %s is not a command line ctool accepts: exit %d\n%s", where, strings.Join(args, " "), code, out)
	}
}

func TestDeployCompose(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(deployDir, "compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	var replicas []string
	for name, s := range c.Services {
		if s.Image != "ctool:local" {
			continue
		}
		replicas = append(replicas, name)
		if df := filepath.Join(deployDir, s.Build.Context, s.Build.Dockerfile); s.Build.Dockerfile == "" || !fileHas(t, df, `ENTRYPOINT ["ctool"]`) {
			t.Errorf("%s: the image is not built by a Dockerfile whose entry point is ctool (%s)", name, df)
		}
		acceptedByCtool(t, "compose "+name, s.Command)
		grace, _ := time.ParseDuration(s.StopGracePeriod)
		if drain, _ := time.ParseDuration(flagValue(s.Command, "drain")); grace <= drain {
			t.Errorf("%s: stop_grace_period %s is not longer than --drain %s", name, grace, drain)
		}
		if port := portOf(flagValue(s.Command, "http")); !strings.Contains(c.Configs["nginx"].Content, "server "+name+":"+port) {
			t.Errorf("nginx does not proxy to %s:%s", name, port)
		}
	}
	if len(replicas) < 2 {
		t.Fatalf("%d replicas of ctool, want at least 2", len(replicas))
	}

	// One replica's command line, run as written: only the store (a directory here), the cache and the
	// ports are this machine's. Its health check's URL answers 200.
	s := c.Services[replicas[0]]
	store := t.TempDir()
	if code, out := runChild(t, "publish", "--db", ingesttest.Build(t, ingesttest.SampleInput(t)), "file://"+store); code != 0 {
		t.Fatalf("ctool publish: exit %d\n%s", code, out)
	}
	args := slices.Clone(s.Command)
	for i, a := range args {
		switch {
		case strings.HasPrefix(a, "s3://"):
			args[i] = "file://" + store
		case strings.HasPrefix(a, "0.0.0.0:"):
			args[i] = "127.0.0.1:0"
		case a == flagValue(s.Command, "cache"):
			args[i] = t.TempDir()
		}
	}
	srv := startServer(t, args...)
	check := s.Healthcheck.Test
	if len(check) < 2 || !strings.HasPrefix(check[len(check)-1], "http://127.0.0.1:"+portOf(flagValue(s.Command, "metrics"))+"/") {
		t.Fatalf("the health check %v does not ask the --metrics listener", check)
	}
	path := "/" + strings.SplitN(strings.TrimPrefix(check[len(check)-1], "http://"), "/", 2)[1]
	eventually(t, "the health check answers 200", func() bool {
		code, _ := getBody(t, srv.field("metrics")+path)
		return code == 200
	})
	if h := healthOf(t, srv.field("metrics")); len(h.Sites) != 1 || h.Sites[0].State != "current" {
		t.Errorf("/healthz of the replica: %+v", h)
	}
}

func TestDeployKubernetes(t *testing.T) {
	t.Parallel()
	f, err := os.Open(filepath.Join(deployDir, "k8s.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type probe struct {
		HTTPGet struct {
			Path string `yaml:"path"`
			Port string `yaml:"port"`
		} `yaml:"httpGet"`
	}
	type container struct {
		Args  []string `yaml:"args"`
		Ports []struct {
			Name          string `yaml:"name"`
			ContainerPort int    `yaml:"containerPort"`
		} `yaml:"ports"`
		StartupProbe   *probe `yaml:"startupProbe"`
		ReadinessProbe *probe `yaml:"readinessProbe"`
		LivenessProbe  *probe `yaml:"livenessProbe"`
	}
	var doc struct {
		Kind string `yaml:"kind"`
		Spec struct {
			Replicas int `yaml:"replicas"`
			Template struct {
				Spec struct {
					Grace      int         `yaml:"terminationGracePeriodSeconds"`
					Containers []container `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
			Ports []struct {
				TargetPort string `yaml:"targetPort"`
			} `yaml:"ports"`
		} `yaml:"spec"`
	}
	dec := yaml.NewDecoder(f)
	kinds := map[string]bool{}
	var ports map[string]string // port name → number, of the Deployment's container
	var targets []string
	for dec.Decode(&doc) == nil {
		kinds[doc.Kind] = true
		switch doc.Kind {
		case "Deployment":
			if doc.Spec.Replicas < 2 || len(doc.Spec.Template.Spec.Containers) != 1 {
				t.Fatalf("the Deployment: %d replicas, %d containers", doc.Spec.Replicas, len(doc.Spec.Template.Spec.Containers))
			}
			c := doc.Spec.Template.Spec.Containers[0]
			acceptedByCtool(t, "the Deployment", c.Args)
			drain, _ := time.ParseDuration(flagValue(c.Args, "drain"))
			if time.Duration(doc.Spec.Template.Spec.Grace)*time.Second <= drain {
				t.Errorf("terminationGracePeriodSeconds %d is not longer than --drain %s", doc.Spec.Template.Spec.Grace, drain)
			}
			ports = map[string]string{}
			for _, p := range c.Ports {
				ports[p.Name] = strconv.Itoa(p.ContainerPort)
			}
			monitor := portOf(flagValue(c.Args, "metrics"))
			for what, p := range map[string]*probe{"startup": c.StartupProbe, "readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
				if p == nil || ports[p.HTTPGet.Port] != monitor {
					t.Errorf("the %s probe does not ask the --metrics listener (port %s)", what, monitor)
					continue
				}
				if want := map[string]string{"startup": "/readyz", "readiness": "/readyz", "liveness": "/healthz"}[what]; p.HTTPGet.Path != want {
					t.Errorf("the %s probe asks %s, want %s", what, p.HTTPGet.Path, want)
				}
			}
			if ports["mcp"] != portOf(flagValue(c.Args, "http")) {
				t.Errorf("the container port mcp %s is not --http's", ports["mcp"])
			}
		case "Service":
			for _, p := range doc.Spec.Ports {
				targets = append(targets, p.TargetPort)
			}
		}
		doc.Spec.Ports = nil
	}
	for _, k := range []string{"Deployment", "Service", "PodDisruptionBudget"} {
		if !kinds[k] {
			t.Errorf("no %s", k)
		}
	}
	if len(targets) != 1 || targets[0] != "mcp" {
		t.Errorf("the Service targets %v, want the mcp port", targets)
	}
}

func portOf(addr string) string {
	_, port, _ := net.SplitHostPort(addr)
	return port
}

func fileHas(t *testing.T, path, s string) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	return err == nil && strings.Contains(string(b), s)
}
