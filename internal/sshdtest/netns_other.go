//go:build !linux

package sshdtest

import "errors"

// do cannot enter a network namespace off Linux; the tests that need one are Linux-only in practice, and this keeps
// the package building (and vetted) for the macOS code paths.
func (n *Namespace) do(func() error) error {
	return errors.New("network namespaces need Linux")
}
