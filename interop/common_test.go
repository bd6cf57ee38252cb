package interop

import "github.com/verdict-llm/verdict/schemas"

var bundleOverwrite = schemas.BundleOptions{Overwrite: true}
