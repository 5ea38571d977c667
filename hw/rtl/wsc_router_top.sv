// Co-simulation shell around wsc_router: the same port shapes for every parameter set (8 ports,
// 64-bit flits, 8-bit small fields), so one C++ adapter template drives every Verilated variant.
// Ports beyond PORTS and field bits beyond the core's widths are ignored / driven to zero.
/* verilator lint_off UNUSEDSIGNAL */  // the shell's spare ports and field bits are unused by design
module wsc_router_top
  import wsc_router_pkg::*;
#(
  parameter int PORTS    = 5,
  parameter int VCS      = 4,
  parameter int DEPTH    = 8,
  parameter int PIPELINE = 2
) (
  input  logic         clk,
  input  logic         rst_n,
  input  logic [11:0]  my_x,
  input  logic [11:0]  my_y,
  input  logic [7:0]   port_en,
  input  logic [7:0]   cfg_ser [8],
  input  logic [7:0]   in_valid,
  input  logic [63:0]  in_flit [8],
  input  logic [7:0]   cr_in_valid,
  input  logic [7:0]   cr_in_vc [8],
  output logic [7:0]   out_valid,
  output logic [63:0]  out_flit [8],
  output logic [7:0]   cr_out_valid,
  output logic [7:0]   cr_out_vc [8],
  output logic [7:0]   sw_out [8],
  output logic [7:0]   err_overflow,
  output logic [7:0]   err_credit,
  output logic [7:0]   err_protocol
);

  localparam int PW = (PORTS > 1) ? $clog2(PORTS) : 1;
  localparam int VW = (VCS > 1) ? $clog2(VCS) : 1;

  logic [7:0]    c_cfg_ser   [PORTS];
  flit_t         c_in_flit   [PORTS];
  logic [VW-1:0] c_cr_in_vc  [PORTS];
  flit_t         c_out_flit  [PORTS];
  logic [VW-1:0] c_cr_out_vc [PORTS];
  logic [PW-1:0] c_sw_out    [PORTS];
  logic [PORTS-1:0] c_out_valid, c_cr_out_valid, c_err_overflow, c_err_credit, c_err_protocol;
  logic [7:0] bad_cr_vc;  // credit VC beyond the core's field: reported as a credit error

  always_comb begin
    for (int p = 0; p < PORTS; p++) begin
      c_cfg_ser[p]  = cfg_ser[p];
      c_in_flit[p]  = flit_t'(in_flit[p]);
      c_cr_in_vc[p] = cr_in_vc[p][VW-1:0];
    end
    bad_cr_vc = '0;
    for (int p = 0; p < 8; p++) bad_cr_vc[p] = cr_in_valid[p] && int'(cr_in_vc[p]) >= VCS;
  end

  wsc_router #(
    .PORTS(PORTS), .VCS(VCS), .DEPTH(DEPTH), .PIPELINE(PIPELINE), .SER_W(8)
  ) u_core (
    .clk, .rst_n, .my_x, .my_y,
    .port_en     (port_en[PORTS-1:0]),
    .cfg_ser     (c_cfg_ser),
    .in_valid    (in_valid[PORTS-1:0]),
    .in_flit     (c_in_flit),
    .cr_in_valid (cr_in_valid[PORTS-1:0]),
    .cr_in_vc    (c_cr_in_vc),
    .out_valid   (c_out_valid),
    .out_flit    (c_out_flit),
    .cr_out_valid(c_cr_out_valid),
    .cr_out_vc   (c_cr_out_vc),
    .sw_out      (c_sw_out),
    .err_overflow(c_err_overflow),
    .err_credit  (c_err_credit),
    .err_protocol(c_err_protocol)
  );

  always_comb begin
    out_valid    = 8'(c_out_valid);
    cr_out_valid = 8'(c_cr_out_valid);
    err_overflow = 8'(c_err_overflow);
    err_credit   = 8'(c_err_credit) | bad_cr_vc;
    // Traffic on a port the core does not have is a wiring error.
    err_protocol = 8'(c_err_protocol) | (in_valid & ~8'((1 << PORTS) - 1));
    for (int p = 0; p < 8; p++) begin
      out_flit[p]  = '0;
      cr_out_vc[p] = '0;
      sw_out[p]    = '0;
    end
    for (int p = 0; p < PORTS; p++) begin
      out_flit[p]  = 64'(c_out_flit[p]);
      cr_out_vc[p] = 8'(c_cr_out_vc[p]);
      sw_out[p]    = 8'(c_sw_out[p]);
    end
  end

endmodule
/* verilator lint_on UNUSEDSIGNAL */
