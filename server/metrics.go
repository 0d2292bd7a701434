package server

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/stickhq/stick/stick"
)

// metrics are the hub's Prometheus metrics, in a registry of its own (so
// two hubs in one process, as in tests, count apart).
type metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	polls     prometheus.Gauge
	streams   prometheus.Gauge
	joins     prometheus.Counter
	grants    prometheus.Counter
	takeovers prometheus.Counter
}

// newMetrics registers the hub's metrics. rooms counts the open rooms and
// their active members when scraped; the process and Go runtime
// collectors come too.
func newMetrics(rooms func(context.Context) (open, members int, err error)) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "stick_http_requests_total", Help: "HTTP requests answered, by route, method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "stick_http_request_duration_seconds", Help: "Time to answer an HTTP request, by route (long polls included).",
			Buckets: []float64{.0005, .001, .002, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 600},
		}, []string{"route"}),
		polls: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "stick_long_polls_open", Help: "Long polls (waits for a turn, for events, for members, for a wake) in progress.",
		}),
		streams: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "stick_liveness_streams_open", Help: "Liveness streams of proxies ('stick mcp --server') up.",
		}),
		joins: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "stick_joins_total", Help: "Joins through the hub that added a member to a room.",
		}),
		grants: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "stick_grants_total", Help: "Turns granted through the hub (wait answered your_turn).",
		}),
		takeovers: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "stick_takeovers_total", Help: "Takeovers through the hub.",
		}),
	}
	scrape := func(members bool) func() float64 {
		return func() float64 {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			open, n, err := rooms(ctx)
			if err != nil {
				return -1
			}
			if members {
				return float64(n)
			}
			return float64(open)
		}
	}
	m.reg.MustRegister(m.requests, m.latency, m.polls, m.streams, m.joins, m.grants, m.takeovers,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "stick_rooms_open", Help: "Rooms not closed (-1 when the store cannot be read)."}, scrape(false)),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "stick_members_active", Help: "Members of open rooms who take turns: active or away (-1 when the store cannot be read)."}, scrape(true)),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewGoCollector(),
	)
	return m
}

// request counts one answered request.
func (m *metrics) request(route, method string, status int, took time.Duration) {
	if route == "" {
		route = "other"
	}
	m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route).Observe(took.Seconds())
}

// handler serves the metrics in the Prometheus text format.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// countRooms counts the open rooms of svc and their active members.
func countRooms(svc *stick.Service) func(context.Context) (int, int, error) {
	return func(ctx context.Context) (int, int, error) {
		rooms, err := svc.ListRooms(ctx, "")
		if err != nil {
			return 0, 0, err
		}
		open, members := 0, 0
		for _, r := range rooms {
			if r.State != stick.StateClosed {
				open++
				members += r.ActiveMembers
			}
		}
		return open, members, nil
	}
}
