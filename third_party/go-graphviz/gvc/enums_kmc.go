package gvc

import (
	"context"

	"github.com/goccy/go-graphviz/internal/wasm"
)

// kmc patch: these package variables copy enum values that the WebAssembly module defines.
// Upstream set them at package initialisation, after internal/wasm's init had instantiated
// the module; with the module instantiated on first use (internal/wasm/lazy.go) they are
// copied again once it is, or every fill, pen and render feature would be zero.
func init() {
	wasm.OnInit(func(context.Context) error {
		RenderYGoesDown = RenderFeature(wasm.RENDER_Y_GOES_DOWN)
		RenderDoesTransform = RenderFeature(wasm.RENDER_DOES_TRANSFORM)
		RenderDoesLabels = RenderFeature(wasm.RENDER_DOES_LABELS)
		RenderDoesMaps = RenderFeature(wasm.RENDER_DOES_MAPS)
		RenderDoesMapRectangle = RenderFeature(wasm.RENDER_DOES_MAP_RECTANGLE)
		RenderDoesMapCircle = RenderFeature(wasm.RENDER_DOES_MAP_CIRCLE)
		RenderDoesMapPolygon = RenderFeature(wasm.RENDER_DOES_MAP_POLYGON)
		RenderDoesMapEllipse = RenderFeature(wasm.RENDER_DOES_MAP_ELLIPSE)
		RenderDoesMapBspline = RenderFeature(wasm.RENDER_DOES_MAP_BSPLINE)
		RenderDoesTooltips = RenderFeature(wasm.RENDER_DOES_TOOLTIPS)
		RenderDoesTargets = RenderFeature(wasm.RENDER_DOES_TARGETS)
		RenderDoesZ = RenderFeature(wasm.RENDER_DOES_Z)
		RenderNoWhiteBg = RenderFeature(wasm.RENDER_NO_WHITE_BG)
		HSVADouble = ColorType(wasm.HSVA_DOUBLE)
		RGBAByte = ColorType(wasm.RGBA_BYTE)
		RGBAWord = ColorType(wasm.RGBA_WORD)
		RGBADouble = ColorType(wasm.RGBA_DOUBLE)
		ColorString = ColorType(wasm.COLOR_STRING)
		ColorIndex = ColorType(wasm.COLOR_INDEX)
		LabelPlain = LabelType(wasm.LABEL_PLAIN)
		LabelHTML = LabelType(wasm.LABEL_HTML)
		FillNone = FillType(wasm.FILL_NONE)
		FillSolid = FillType(wasm.FILL_SOLID)
		FillLinear = FillType(wasm.FILL_LINEAR)
		FillRadial = FillType(wasm.FILL_RADIAL)
		PenNone = PenType(wasm.PEN_NONE)
		PenDashed = PenType(wasm.PEN_DASHED)
		PenDotted = PenType(wasm.PEN_DOTTED)
		PenSolid = PenType(wasm.PEN_SOLID)
		RootGraphObjectType = ObjectType(wasm.ROOTGRAPH_OBJTYPE)
		ClusterObjectType = ObjectType(wasm.CLUSTER_OBJTYPE)
		NodeObjectType = ObjectType(wasm.NODE_OBJTYPE)
		EdgeObjectType = ObjectType(wasm.EDGE_OBJTYPE)
		ImageTypeNull = ImageType(wasm.IMAGE_TYPE_NULL)
		ImageTypeBMP = ImageType(wasm.IMAGE_TYPE_BMP)
		ImageTypeGIF = ImageType(wasm.IMAGE_TYPE_GIF)
		ImageTypePNG = ImageType(wasm.IMAGE_TYPE_PNG)
		ImageTypeJPEG = ImageType(wasm.IMAGE_TYPE_JPEG)
		ImageTypePDF = ImageType(wasm.IMAGE_TYPE_PDF)
		ImageTypePS = ImageType(wasm.IMAGE_TYPE_PS)
		ImageTypeEPS = ImageType(wasm.IMAGE_TYPE_EPS)
		ImageTypeSVG = ImageType(wasm.IMAGE_TYPE_SVG)
		ImageTypeXML = ImageType(wasm.IMAGE_TYPE_XML)
		ImageTypeRIFF = ImageType(wasm.IMAGE_TYPE_RIFF)
		ImageTypeWEBP = ImageType(wasm.IMAGE_TYPE_WEBP)
		ImageTypeICO = ImageType(wasm.IMAGE_TYPE_ICO)
		ImageTypeTIFF = ImageType(wasm.IMAGE_TYPE_TIFF)
		DeviceDoesPages = DeviceFeature(wasm.DEVICE_DOES_PAGES)
		DeviceDoesLayers = DeviceFeature(wasm.DEVICE_DOES_LAYERS)
		DeviceEvents = DeviceFeature(wasm.DEVICE_EVENTS)
		DeviceDoesTrueColor = DeviceFeature(wasm.DEVICE_DOES_TRUECOLOR)
		DeviceBinaryFormat = DeviceFeature(wasm.DEVICE_BINARY_FORMAT)
		DeviceCompressedFormat = DeviceFeature(wasm.DEVICE_COMPRESSED_FORMAT)
		DeviceNoWriter = DeviceFeature(wasm.DEVICE_NO_WRITER)
		return nil
	})
}
