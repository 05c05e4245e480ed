package publish

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

// s3Store keeps objects in a bucket under a key prefix.
type s3Store struct {
	loc    Location
	client *s3.Client
}

// newS3Store reads credentials, region and endpoint the standard AWS way (environment, then the
// shared files). A custom endpoint (AWS_ENDPOINT_URL or AWS_ENDPOINT_URL_S3) is almost always an
// S3-compatible server on a plain host name, which needs path-style addressing.
func newS3Store(ctx context.Context, loc Location) (*s3Store, error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: AWS configuration: %w", loc, err)
	}
	custom := os.Getenv("AWS_ENDPOINT_URL") != "" || os.Getenv("AWS_ENDPOINT_URL_S3") != ""
	if custom && cfg.Region == "" {
		cfg.Region = "us-east-1" // what S3-compatible servers expect when none is set
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = custom })
	return &s3Store{loc: loc, client: client}, nil
}

func (s *s3Store) URL() string { return s.loc.String() }

func (s *s3Store) key(key string) (*string, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	if s.loc.Prefix == "" {
		return aws.String(key), nil
	}
	return aws.String(s.loc.Prefix + "/" + key), nil
}

func (s *s3Store) Put(ctx context.Context, key string, body io.ReadSeeker, size int64) error {
	if got, err := s.Head(ctx, key); err == nil && got == size {
		return nil
	} else if err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	k, err := s.key(key)
	if err != nil {
		return err
	}
	// A different size under a content-addressed key is a broken object: replacing it repairs it.
	_, err = s.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket: &s.loc.Bucket, Key: k, Body: body, ContentLength: aws.Int64(size),
	})
	return s.wrap("put", key, err)
}

func (s *s3Store) Get(ctx context.Context, key string) (io.ReadCloser, int64, error) {
	k, err := s.key(key)
	if err != nil {
		return nil, 0, err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.loc.Bucket, Key: k})
	if err != nil {
		return nil, 0, s.wrap("get", key, err)
	}
	if out.ContentLength == nil {
		out.Body.Close()
		return nil, 0, fmt.Errorf("%s: get %s: the answer has no length", s.loc, key)
	}
	return checkedBody{out.Body}, *out.ContentLength, nil
}

// checkedBody names the SDK's own response checksum failure (its error type is unexported, so
// its message is matched; should that change, the failure still stops the read, only less named).
type checkedBody struct{ io.ReadCloser }

func (b checkedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF && strings.Contains(err.Error(), "checksum did not match") {
		err = fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return n, err
}

func (s *s3Store) Head(ctx context.Context, key string) (int64, error) {
	k, err := s.key(key)
	if err != nil {
		return 0, err
	}
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.loc.Bucket, Key: k})
	if err != nil {
		return 0, s.wrap("head", key, err)
	}
	return aws.ToInt64(out.ContentLength), nil
}

func (s *s3Store) ReadVersioned(ctx context.Context, key string, limit int64) ([]byte, string, error) {
	k, err := s.key(key)
	if err != nil {
		return nil, "", err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.loc.Bucket, Key: k})
	if err != nil {
		return nil, "", s.wrap("get", key, err)
	}
	defer out.Body.Close()
	data, err := readLimited(checkedBody{out.Body}, limit)
	if err != nil {
		return nil, "", fmt.Errorf("%s: get %s: %w", s.loc, key, err)
	}
	etag := aws.ToString(out.ETag)
	if etag == "" {
		return nil, "", fmt.Errorf("%s: get %s: the answer has no ETag to write against", s.loc, key)
	}
	return data, etag, nil
}

// WriteIfVersion is S3's conditional PutObject: If-Match on the ETag read, or If-None-Match: *
// to create. S3 answers a lost race with 412, or 409 when two conditional writes overlap.
func (s *s3Store) WriteIfVersion(ctx context.Context, key string, data []byte, version string) error {
	k, err := s.key(key)
	if err != nil {
		return err
	}
	in := &s3.PutObjectInput{
		Bucket: &s.loc.Bucket, Key: k, Body: bytes.NewReader(data),
		ContentLength: aws.Int64(int64(len(data))), ContentType: aws.String("application/json"),
	}
	if version == "" {
		in.IfNoneMatch = aws.String("*")
	} else {
		in.IfMatch = aws.String(version)
	}
	_, err = s.client.PutObject(ctx, in)
	if code := statusCode(err); code == 412 || code == 409 {
		return fmt.Errorf("%s: put %s: %w", s.loc, key, ErrConflict)
	}
	return s.wrap("put", key, err)
}

// wrap names the store and the operation, and turns a 404 into ErrNotFound.
func (s *s3Store) wrap(op, key string, err error) error {
	if err == nil {
		return nil
	}
	// A missing bucket is a broken setting, not a missing object: it must not read as "nothing
	// published yet".
	var api smithy.APIError
	if errors.As(err, &api) && api.ErrorCode() == "NoSuchBucket" {
		return fmt.Errorf("%s: %s %s: the bucket does not exist: %w", s.loc, op, key, err)
	}
	if statusCode(err) == 404 {
		return fmt.Errorf("%s: %s %s: %w", s.loc, op, key, ErrNotFound)
	}
	return fmt.Errorf("%s: %s %s: %w", s.loc, op, key, err)
}

func statusCode(err error) int {
	var re interface{ HTTPStatusCode() int }
	if err != nil && errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// readLimited reads r whole, refusing more than limit bytes.
func readLimited(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than %d bytes", limit)
	}
	return data, nil
}
