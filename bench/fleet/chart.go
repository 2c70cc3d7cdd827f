package main

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"sort"
	"strconv"
)

// chart geometry, in pixels.
const (
	chartW, chartH   = 1120, 500
	panelW, panelH   = 430, 300
	panelTop         = 80
	leftPanel        = 100
	rightPanel       = 650
	textScale        = 2
	lineHalfWidth    = 1
	markerHalfWidth  = 4
	legendTop        = 440
	legendItemSpacer = 40
)

// The chart's colours: text and axes, grid lines, background.
func ink() color.RGBA   { return color.RGBA{40, 40, 40, 255} }
func faint() color.RGBA { return color.RGBA{225, 225, 225, 255} }
func paper() color.RGBA { return color.RGBA{255, 255, 255, 255} }

// modeColor is a mode's colour in the chart, by its place in Modes.
func modeColor(i int) color.RGBA {
	palette := []color.RGBA{{214, 39, 40, 255}, {31, 119, 180, 255}, {44, 160, 44, 255}, {148, 103, 189, 255}, {255, 127, 14, 255}, {140, 86, 75, 255}}
	return palette[i%len(palette)]
}

// series is one mode's points: agents → value.
type series struct {
	mode   string
	colour color.RGBA
	x      []int
	y      []float64
}

// writeChart draws useful throughput and lost updates against the number
// of agents, one line per mode, for the runs of fleet, as a PNG at path.
func writeChart(path string, results []Result, fleet string) error {
	var thr, lost []series
	var sizes []int
	seen := map[int]bool{}
	for i, m := range Modes() {
		t := series{mode: m.Name, colour: modeColor(i)}
		l := t
		var rs []Result
		for _, r := range results {
			if r.Mode == m.Name && r.Fleet == fleet {
				rs = append(rs, r)
			}
		}
		sort.Slice(rs, func(a, b int) bool { return rs[a].Agents < rs[b].Agents })
		for _, r := range rs {
			t.x, t.y = append(t.x, r.Agents), append(t.y, r.Throughput)
			l.x, l.y = append(l.x, r.Agents), append(l.y, 100*r.LostShare)
			if !seen[r.Agents] {
				seen[r.Agents] = true
				sizes = append(sizes, r.Agents)
			}
		}
		if len(rs) > 0 {
			thr, lost = append(thr, t), append(lost, l)
		}
	}
	if len(sizes) == 0 {
		return fmt.Errorf("chart: no run of the %s fleet", fleet)
	}
	sort.Ints(sizes)
	img := image.NewRGBA(image.Rect(0, 0, chartW, chartH))
	fill(img, 0, 0, chartW, chartH, paper())
	font := glyphs()
	title := "fleet of " + fleet + " agents: what survives, and what is lost"
	drawText(img, font, (chartW-textWidth(title, textScale))/2, 20, textScale, title, ink())
	panel(img, font, leftPanel, "useful throughput (surviving writes/s)", sizes, thr)
	panel(img, font, rightPanel, "lost updates (% of accepted writes)", sizes, lost)
	x := leftPanel
	for _, s := range thr {
		fill(img, x, legendTop+3, 24, 8, s.colour)
		drawText(img, font, x+32, legendTop, textScale, s.mode, ink())
		x += 32 + textWidth(s.mode, textScale) + legendItemSpacer
	}
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(out, img); err != nil {
		out.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return out.Close()
}

// panel draws one plot with its top left corner at (left, panelTop): the
// agent counts along a log₂ axis, the values from 0 up.
func panel(img *image.RGBA, font map[rune][7]string, left int, title string, sizes []int, lines []series) {
	top, bottom, right := panelTop, panelTop+panelH, left+panelW
	drawText(img, font, left+(panelW-textWidth(title, textScale))/2, top-30, textScale, title, ink())
	high := 0.0
	for _, s := range lines {
		for _, v := range s.y {
			high = math.Max(high, v)
		}
	}
	step, high := niceScale(high)
	yOf := func(v float64) int { return bottom - int(math.Round(v/high*float64(panelH))) }
	lo, hi := math.Log2(float64(sizes[0])), math.Log2(float64(sizes[len(sizes)-1]))
	xOf := func(n int) int {
		if hi == lo {
			return left + panelW/2
		}
		return left + 20 + int(math.Round((math.Log2(float64(n))-lo)/(hi-lo)*float64(panelW-40)))
	}
	for v := 0.0; v <= high+step/2; v += step {
		y := yOf(v)
		fill(img, left, y, panelW, 1, faint())
		label := strconv.FormatFloat(v, 'f', -1, 64)
		if step < 1 {
			label = strconv.FormatFloat(v, 'f', decimals(step), 64)
		}
		drawText(img, font, left-10-textWidth(label, textScale), y-7, textScale, label, ink())
	}
	fill(img, left, top, 1, panelH+1, ink())
	fill(img, left, bottom, panelW, 1, ink())
	fill(img, right, top, 1, panelH+1, faint())
	for _, n := range sizes {
		x := xOf(n)
		fill(img, x, bottom, 1, 6, ink())
		label := strconv.Itoa(n)
		drawText(img, font, x-textWidth(label, textScale)/2+1, bottom+12, textScale, label, ink())
	}
	drawText(img, font, left+(panelW-textWidth("agents", textScale))/2, bottom+36, textScale, "agents", ink())
	for _, s := range lines {
		for i := range s.x {
			x, y := xOf(s.x[i]), yOf(s.y[i])
			if i > 0 {
				line(img, xOf(s.x[i-1]), yOf(s.y[i-1]), x, y, s.colour)
			}
			fill(img, x-markerHalfWidth, y-markerHalfWidth, 2*markerHalfWidth+1, 2*markerHalfWidth+1, s.colour)
		}
	}
}

// line draws a thick straight line from (x0, y0) to (x1, y1).
func line(img *image.RGBA, x0, y0, x1, y1 int, c color.Color) {
	n := max(abs(x1-x0), abs(y1-y0), 1)
	for i := 0; i <= n; i++ {
		x := x0 + (x1-x0)*i/n
		y := y0 + (y1-y0)*i/n
		fill(img, x-lineHalfWidth, y-lineHalfWidth, 2*lineHalfWidth+1, 2*lineHalfWidth+1, c)
	}
}

// niceScale returns a tick step of 1, 2 or 5 times a power of ten giving
// about five ticks up to at least high, and the top of the axis.
func niceScale(high float64) (float64, float64) {
	if high <= 0 {
		return 1, 1
	}
	raw := high / 5
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * pow
	for _, f := range []float64{1, 2, 5} {
		if f*pow >= raw {
			step = f * pow
			break
		}
	}
	return step, math.Ceil(high/step) * step
}

// decimals is how many decimals show a multiple of step.
func decimals(step float64) int {
	return max(0, int(math.Ceil(-math.Log10(step))))
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
