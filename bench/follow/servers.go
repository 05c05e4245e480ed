// The servers: versitygw with a bucket, ctool publish, the two replicas and nginx in front of them.

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/azabudai/ctool/bench/internal/benchkit"
)

// startStore starts versitygw on loopback with a bucket, and points this process's AWS environment
// (which its children inherit) at it.
func startStore(ctx context.Context, tmp string) (*benchkit.Proc, string, error) {
	root := filepath.Join(tmp, "s3")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, "", err
	}
	addr := benchkit.FreeAddr()
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": accessKey, "AWS_SECRET_ACCESS_KEY": secretKey, "AWS_REGION": "us-east-1",
		"AWS_ENDPOINT_URL": "http://" + addr, "AWS_EC2_METADATA_DISABLED": "true", "AWS_CONFIG_FILE": filepath.Join(root, "none"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(root, "none"), "AWS_PROFILE": "", "AWS_SESSION_TOKEN": ""} {
		os.Setenv(k, v)
	}
	cmd := exec.CommandContext(ctx, *gwBin, "--access", accessKey, "--secret", secretKey, "--region", "us-east-1", "--port", addr, "--quiet", "posix", root)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	p, err := benchkit.Start(cmd)
	if err != nil {
		return nil, "", err
	}
	for i := 0; ; i++ {
		if resp, err := http.Get("http://" + addr + "/"); err == nil {
			resp.Body.Close()
			break
		}
		if i == 300 {
			p.Stop(syscall.SIGTERM, time.Second)
			return nil, "", fmt.Errorf("versitygw did not answer\n%s", out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, "", err
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		return nil, "", fmt.Errorf("create bucket: %v", err)
	}
	say("versitygw on %s, bucket %s", addr, bucket)
	return p, "s3://" + bucket + "/builds", nil
}

// publishBuild publishes the build at db and returns its id, from the manifest ctool publish prints.
func publishBuild(ctx context.Context, db, storeURL string) (string, error) {
	out, err := exec.CommandContext(ctx, *ctoolBin, "publish", "--db", db, storeURL, "--format", "json").Output()
	var doc struct {
		Manifest struct {
			BuildID string `json:"build_id"`
		}
	}
	if err == nil {
		err = json.Unmarshal(out, &doc)
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			out = append(out, ee.Stderr...)
		}
		return "", fmt.Errorf("ctool publish: %v\n%s", err, out)
	}
	return doc.Manifest.BuildID, nil
}

type replica struct {
	name, addr, monitor string
	proc                *benchkit.Proc
}

func startReplica(ctx context.Context, name, storeURL, cache string) (*replica, error) {
	r := &replica{name: name, monitor: "http://" + benchkit.FreeAddr()}
	cmd := exec.CommandContext(ctx, *ctoolBin, "mcp", "--http", benchkit.FreeAddr(), "--metrics", strings.TrimPrefix(r.monitor, "http://"),
		"--follow", storeURL, "--follow-interval", interval.String(), "--cache", cache, "--timeout", "3s", "--drain", "30s")
	p, u, err := benchkit.StartServing(cmd, time.Minute)
	if err != nil {
		return nil, fmt.Errorf("replica %s: %w", name, err)
	}
	r.proc, r.addr = p, strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/mcp")
	say("replica %s on %s, following %s every %s", name, r.addr, storeURL, *interval)
	return r, nil
}

// serving is the build the replica's /healthz says it serves ("" if it does not answer).
func (r *replica) serving(ctx context.Context) string {
	req, _ := http.NewRequestWithContext(ctx, "GET", r.monitor+"/healthz", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var h struct {
		Sites []struct{ Build string }
	}
	if json.NewDecoder(resp.Body).Decode(&h) != nil || len(h.Sites) != 1 {
		return ""
	}
	return h.Sites[0].Build
}
