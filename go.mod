module kmc

go 1.26

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/chromedp/cdproto v0.160.1
	github.com/chromedp/chromedp v0.23.1
	github.com/dominikbraun/graph v0.23.0
	github.com/goccy/go-graphviz v0.2.10
	github.com/spf13/pflag v1.1.0
)

require (
	github.com/disintegration/imaging v1.6.2 // indirect
	github.com/flopp/go-findfont v0.1.0 // indirect
	github.com/fogleman/gg v1.3.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/golang/freetype v0.0.0-20170609003504-e2365dfdc4a0 // indirect
	github.com/tetratelabs/wazero v1.10.1 // indirect
	golang.org/x/image v0.21.0 // indirect
	golang.org/x/text v0.19.0 // indirect
)

// go-graphviz v0.2.10 with its start-up work made lazy: see third_party/go-graphviz/KMC-PATCH.md.
replace github.com/goccy/go-graphviz => ./third_party/go-graphviz
