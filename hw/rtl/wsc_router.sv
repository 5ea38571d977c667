// Input-queued virtual-channel router with credit-based wormhole flow control: the RTL twin of
// noc/Router.cpp, cycle for cycle (docs/RTL.md). Unicast dimension-order (XY) routing on a mesh;
// the C++ router's multicast fork and torus dateline classes are not implemented here.
//
// Timing. A flit presented on in_flit in cycle a is written into its VC buffer at the end of a
// and may take part in allocation from cycle a + PIPELINE (a per-slot countdown, because that is
// exactly the C++ router's `ready = arrival + pipeline`). In that cycle route computation, VC
// allocation (heads) and switch allocation happen combinationally; a granted flit appears on
// out_flit in the same cycle and its credit on cr_out_*, so the network sees it leave in the cycle
// the C++ router calls Network::forward. A credit presented on cr_in_* in cycle t counts in cycle
// t's switch allocation (a bypass), because the C++ network delivers credits before routers
// evaluate.
//
// Allocators (identical pointer rules and tie-breaks to noc::Router):
//  - VA, per output port o: walk the input VCs i = va_rr[o], va_rr[o]+1, ... (mod PORTS*VCS);
//    every requester routed to o gets the lowest free output VC while any is free;
//    va_rr[o] <- last granted i + 1.
//  - SA input stage, per input port p: the first VC from sa_in_rr[p] that holds an output VC, has
//    a ready flit, and whose output is not serialising a flit and has a credit.
//  - SA output stage, per output o: the first requesting input port from sa_out_rr[o];
//    sa_out_rr[o] <- winner + 1, and the winner's sa_in_rr <- its VC + 1.
// A VC granted in VA this cycle competes in SA this cycle, as in the C++ evaluate().
module wsc_router
  import wsc_router_pkg::*;
#(
  parameter int PORTS    = 5,  // 4 mesh ports + local ports (<= 8)
  parameter int VCS      = 4,  // virtual channels per port (1..16)
  parameter int DEPTH    = 8,  // flits per VC buffer, and credits per output VC
  parameter int PIPELINE = 2,  // cycles from buffer arrival to allocation (>= 1)
  parameter int SER_W    = 8,  // width of the per-port serialisation count
  localparam int PW = (PORTS > 1) ? $clog2(PORTS) : 1,
  localparam int VW = (VCS > 1) ? $clog2(VCS) : 1
) (
  input  logic               clk,
  input  logic               rst_n,         // synchronous, active low
  input  logic [COORD_W-1:0] my_x,          // this router's mesh coordinates
  input  logic [COORD_W-1:0] my_y,
  input  logic [PORTS-1:0]   port_en,       // output ports with a link: get DEPTH credits at reset
  input  logic [SER_W-1:0]   cfg_ser [PORTS],  // cycles a flit occupies each output link (>= 1)
  input  logic [PORTS-1:0]   in_valid,
  input  flit_t              in_flit [PORTS],
  input  logic [PORTS-1:0]   cr_in_valid,   // a credit for output port o, VC cr_in_vc[o]
  input  logic [VW-1:0]      cr_in_vc [PORTS],
  output logic [PORTS-1:0]   out_valid,
  output flit_t              out_flit [PORTS],  // .vc is the output VC
  output logic [PORTS-1:0]   cr_out_valid,  // a flit left input port p's VC cr_out_vc[p]
  output logic [VW-1:0]      cr_out_vc [PORTS],
  output logic [PW-1:0]      sw_out [PORTS],     // output port won by input port p (if cr_out_valid)
  output logic [PORTS-1:0]   err_overflow,  // flit into a full VC buffer (credit protocol broken)
  output logic [PORTS-1:0]   err_credit,    // credit beyond DEPTH, or for a VC that does not exist
  output logic [PORTS-1:0]   err_protocol   // body flit with no open packet, or bad VC number
);

  localparam int N  = PORTS * VCS;  // input VCs, index i = port * VCS + vc
  localparam int NW = $clog2(N);
  localparam int HW = (DEPTH > 1) ? $clog2(DEPTH) : 1;
  localparam int CW = $clog2(DEPTH + 1);
  localparam int WW = (PIPELINE > 1) ? $clog2(PIPELINE) : 1;

  // ---------------------------------------------------------------------------------------------
  // State
  flit_t            buf_q       [N][DEPTH];  // VC buffers (circular)
  logic [WW-1:0]    wait_q      [N][DEPTH];  // cycles until the slot's flit may be allocated
  logic [HW-1:0]    head_q      [N];
  logic [CW-1:0]    cnt_q       [N];
  vc_state_e        st_q        [N];
  logic [PW-1:0]    oport_q     [N];         // output port of the packet holding the VC
  logic [VW-1:0]    ovc_q       [N];         // output VC it was given
  logic [CW-1:0]    credit_q    [PORTS][VCS];
  logic [VCS-1:0]   alloc_q     [PORTS];     // output VC owned by some input VC
  logic [SER_W-1:0] busy_q      [PORTS];     // output link still serialising the last flit
  logic [NW-1:0]    va_rr_q     [PORTS];
  logic [VW-1:0]    sa_in_rr_q  [PORTS];
  logic [PW-1:0]    sa_out_rr_q [PORTS];

  // ---------------------------------------------------------------------------------------------
  // Route computation: XY as noc::DimensionOrderRouting::nextPort (x first; y grows southwards).
  function automatic logic [PW-1:0] xy_route(logic [COORD_W-1:0] dx, logic [COORD_W-1:0] dy,
                                             logic [2:0] dl, logic [COORD_W-1:0] x,
                                             logic [COORD_W-1:0] y);
    if (dx > x) return PW'(PORT_E);
    if (dx < x) return PW'(PORT_W);
    if (dy > y) return PW'(PORT_S);
    if (dy < y) return PW'(PORT_N);
    return PW'(FIRST_LOCAL + int'(dl));
  endfunction

  function automatic logic [VW-1:0] lowest_set(logic [VCS-1:0] m);
    logic [VW-1:0] r = '0;
    for (int v = VCS - 1; v >= 0; v--) if (m[v]) r = VW'(v);
    return r;
  endfunction

  flit_t         hf     [N];  // flit at the front of each VC
  logic [N-1:0]  hready;      // ... and it has spent PIPELINE cycles in the buffer
  logic [PW-1:0] route  [N];

  always_comb begin
    for (int i = 0; i < N; i++) begin
      hf[i]     = buf_q[i][head_q[i]];
      hready[i] = cnt_q[i] != '0 && wait_q[i][head_q[i]] == '0;
      route[i]  = xy_route(hf[i].dst_x, hf[i].dst_y, hf[i].dst_local, my_x, my_y);
    end
  end

  // ---------------------------------------------------------------------------------------------
  // VC allocation
  logic [N-1:0]   va_req, va_gnt;
  logic [VW-1:0]  va_ovc    [N];
  logic [NW-1:0]  va_rr_d   [PORTS];
  logic [VCS-1:0] alloc_set [PORTS];

  always_comb begin
    int i;
    logic [VCS-1:0] free;
    for (int k = 0; k < N; k++) va_req[k] = st_q[k] == VC_ROUTING && hready[k];
    va_gnt = '0;
    for (int k = 0; k < N; k++) va_ovc[k] = '0;
    for (int o = 0; o < PORTS; o++) begin
      va_rr_d[o]   = va_rr_q[o];
      alloc_set[o] = '0;
      free         = ~alloc_q[o];
      for (int k = 0; k < N; k++) begin
        i = (int'(va_rr_q[o]) + k) % N;
        if (va_req[i] && route[i] == PW'(o) && free != '0) begin
          va_gnt[i] = 1'b1;
          va_ovc[i] = lowest_set(free);
          free[va_ovc[i]] = 1'b0;
          alloc_set[o][va_ovc[i]] = 1'b1;
          va_rr_d[o] = NW'((i + 1) % N);
        end
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Switch allocation, input stage: one candidate VC per input port.
  logic [PORTS-1:0] sa_req;
  logic [VW-1:0]    sa_vc  [PORTS];
  logic [PW-1:0]    sa_o   [PORTS];
  logic [VW-1:0]    sa_ovc [PORTS];

  always_comb begin
    int v;
    logic [NW-1:0] i;
    logic [PW-1:0] o;
    logic [VW-1:0] ov;
    for (int p = 0; p < PORTS; p++) begin
      sa_req[p] = 1'b0;
      sa_vc[p]  = '0;
      sa_o[p]   = '0;
      sa_ovc[p] = '0;
      for (int k = 0; k < VCS; k++) begin
        v  = (int'(sa_in_rr_q[p]) + k) % VCS;
        i  = NW'(p * VCS + v);
        o  = va_gnt[i] ? route[i] : oport_q[i];
        ov = va_gnt[i] ? va_ovc[i] : ovc_q[i];
        if (!sa_req[p] && (st_q[i] == VC_ACTIVE || va_gnt[i]) && hready[i] &&
            busy_q[o] == '0 &&
            (credit_q[o][ov] != '0 || (cr_in_valid[o] && cr_in_vc[o] == ov))) begin
          sa_req[p] = 1'b1;
          sa_vc[p]  = VW'(v);
          sa_o[p]   = o;
          sa_ovc[p] = ov;
        end
      end
    end
  end

  // Switch allocation, output stage: one input port per output port.
  logic [PORTS-1:0] gnt_in;            // input port p sends this cycle
  logic [PW-1:0]    gnt_src [PORTS];   // input port that won output o
  logic [PW-1:0]    sa_out_rr_d [PORTS];

  always_comb begin
    int p;
    gnt_in    = '0;
    out_valid = '0;
    for (int o = 0; o < PORTS; o++) begin
      gnt_src[o]     = '0;
      sa_out_rr_d[o] = sa_out_rr_q[o];
      for (int k = 0; k < PORTS; k++) begin
        p = (int'(sa_out_rr_q[o]) + k) % PORTS;
        if (!out_valid[o] && sa_req[p] && sa_o[p] == PW'(o)) begin
          out_valid[o]   = 1'b1;
          gnt_src[o]     = PW'(p);
          gnt_in[p]      = 1'b1;
          sa_out_rr_d[o] = PW'((p + 1) % PORTS);
        end
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Switch traversal and credit return (combinational: the flit leaves in its grant cycle).
  logic [VW-1:0] send_vc [PORTS];  // output VC used on output o

  always_comb begin
    for (int o = 0; o < PORTS; o++) begin
      send_vc[o]  = sa_ovc[gnt_src[o]];
      out_flit[o] = '0;
      if (out_valid[o]) begin
        out_flit[o]    = hf[int'(gnt_src[o]) * VCS + int'(sa_vc[gnt_src[o]])];
        out_flit[o].vc = 4'(send_vc[o]);
      end
    end
    for (int p = 0; p < PORTS; p++) begin
      cr_out_valid[p] = gnt_in[p];
      cr_out_vc[p]    = sa_vc[p];
      sw_out[p]       = sa_o[p];
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Buffer writes/reads and protocol checks (the C++ router throws on the same conditions).
  logic [N-1:0]  push, pop;
  logic [HW-1:0] wr_slot [N];

  always_comb begin
    logic [NW-1:0] i;
    for (int p = 0; p < PORTS; p++) begin
      err_overflow[p] = 1'b0;
      err_protocol[p] = in_valid[p] && int'(in_flit[p].vc) >= VCS;
      err_credit[p]   = cr_in_valid[p] && int'(cr_in_vc[p]) >= VCS;
      for (int v = 0; v < VCS; v++) begin
        i = NW'(p * VCS + v);
        push[i]    = in_valid[p] && int'(in_flit[p].vc) == v;
        pop[i]     = gnt_in[p] && int'(sa_vc[p]) == v;
        wr_slot[i] = HW'((int'(head_q[i]) + int'(cnt_q[i])) % DEPTH);
        if (push[i] && int'(cnt_q[i]) == DEPTH) err_overflow[p] = 1'b1;
        if (push[i] && st_q[i] == VC_IDLE && !in_flit[p].head) err_protocol[p] = 1'b1;
        // After a tail leaves, whatever is next in the VC must open a new packet.
        if (pop[i] && hf[i].tail && int'(cnt_q[i]) > 1 &&
            !buf_q[i][HW'((int'(head_q[i]) + 1) % DEPTH)].head)
          err_protocol[p] = 1'b1;
        if (pop[i] && hf[i].tail && cnt_q[i] == CW'(1) && push[i] && !in_flit[p].head)
          err_protocol[p] = 1'b1;
        if (cr_in_valid[p] && int'(cr_in_vc[p]) == v && int'(credit_q[p][v]) == DEPTH)
          err_credit[p] = 1'b1;
      end
    end
  end

  // Flit storage has no reset: it is data, qualified everywhere by cnt_q.
  always_ff @(posedge clk) begin
    for (int i = 0; i < N; i++)
      if (push[i]) buf_q[i][wr_slot[i]] <= in_flit[i / VCS];
  end

  always_ff @(posedge clk) begin
    logic [CW-1:0] cnt_d;
    if (!rst_n) begin
      for (int i = 0; i < N; i++) begin
        head_q[i]  <= '0;
        cnt_q[i]   <= '0;
        st_q[i]    <= VC_IDLE;
        oport_q[i] <= '0;
        ovc_q[i]   <= '0;
        for (int s = 0; s < DEPTH; s++) wait_q[i][s] <= '0;
      end
      for (int o = 0; o < PORTS; o++) begin
        for (int v = 0; v < VCS; v++) credit_q[o][v] <= port_en[o] ? CW'(DEPTH) : '0;
        alloc_q[o]     <= '0;
        busy_q[o]      <= '0;
        va_rr_q[o]     <= '0;
        sa_in_rr_q[o]  <= '0;
        sa_out_rr_q[o] <= '0;
      end
    end else begin
      for (int i = 0; i < N; i++) begin
        for (int s = 0; s < DEPTH; s++)
          if (wait_q[i][s] != '0) wait_q[i][s] <= wait_q[i][s] - 1'b1;
        if (push[i]) wait_q[i][wr_slot[i]] <= WW'(PIPELINE - 1);
        if (pop[i]) head_q[i] <= (int'(head_q[i]) == DEPTH - 1) ? '0 : head_q[i] + 1'b1;
        cnt_d = cnt_q[i] + CW'(push[i]) - CW'(pop[i]);
        cnt_q[i] <= cnt_d;
        if (va_gnt[i]) begin
          st_q[i]    <= VC_ACTIVE;
          oport_q[i] <= route[i];
          ovc_q[i]   <= va_ovc[i];
        end
        if (pop[i] && hf[i].tail) st_q[i] <= (cnt_d != '0) ? VC_ROUTING : VC_IDLE;
        else if (push[i] && st_q[i] == VC_IDLE) st_q[i] <= VC_ROUTING;
      end
      for (int o = 0; o < PORTS; o++) begin
        for (int v = 0; v < VCS; v++)
          credit_q[o][v] <= credit_q[o][v]
                            + CW'(cr_in_valid[o] && int'(cr_in_vc[o]) == v)
                            - CW'(out_valid[o] && int'(send_vc[o]) == v);
        alloc_q[o] <= (alloc_q[o] | alloc_set[o]) &
                      ~((out_valid[o] && out_flit[o].tail) ? (VCS'(1) << send_vc[o]) : '0);
        busy_q[o] <= out_valid[o] ? cfg_ser[o] - 1'b1
                                  : (busy_q[o] != '0 ? busy_q[o] - 1'b1 : '0);
        va_rr_q[o]     <= va_rr_d[o];
        sa_out_rr_q[o] <= sa_out_rr_d[o];
        if (gnt_in[o]) sa_in_rr_q[o] <= VW'((int'(sa_vc[o]) + 1) % VCS);
      end
    end
  end

endmodule
