// Types shared by the RTL router and its co-simulation shell.
//
// A flit on the wire is 64 bits. The RTL needs only what route computation and wormhole flow
// control look at (destination coordinates, head/tail, VC); the rest of a flit's identity is an
// opaque id the C++ wrapper uses to give the network back the very flit it sent in. Keeping the
// flit within 64 bits keeps every Verilated port a plain uint64_t.
package wsc_router_pkg;

  localparam int COORD_W = 12;  // mesh coordinates up to 4095 in x and y
  localparam int ID_W = 31;

  typedef struct packed {
    logic [ID_W-1:0]    id;         // opaque: the wrapper's handle of the flit
    logic [COORD_W-1:0] dst_y;      // destination router's row (0 = top row, as in noc/Topology)
    logic [COORD_W-1:0] dst_x;      // destination router's column
    logic [2:0]         dst_local;  // destination local port index (output port 4 + dst_local)
    logic [3:0]         vc;         // VC on the channel the flit is crossing
    logic               tail;
    logic               head;
  } flit_t;

  // Input-VC states, as noc::Router::State.
  typedef enum logic [1:0] {
    VC_IDLE    = 2'd0,  // empty, no packet open
    VC_ROUTING = 2'd1,  // head at the front, waiting for route computation + VC allocation
    VC_ACTIVE  = 2'd2   // holds an output VC: its flits compete in switch allocation
  } vc_state_e;

  // Mesh port numbering of noc/Topology: 0 East (x+1), 1 West (x-1), 2 North (y-1),
  // 3 South (y+1), then the local ports.
  localparam int PORT_E = 0;
  localparam int PORT_W = 1;
  localparam int PORT_N = 2;
  localparam int PORT_S = 3;
  localparam int FIRST_LOCAL = 4;

endpackage
