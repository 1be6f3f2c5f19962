// maxent/model/grid_layout.hpp — the geometry of grid worlds: cells, moves and thin walls.
//
// Paper, Section 6.1 (the grid worlds of environments i–iv), with the conventions of
// docs/reference.md "Grid worlds":
//   * a cell (x, y) has index x + y * width; y = 0 is the TOP row, x = 0 the left column;
//   * the four moves are 0 up (y - 1), 1 down (y + 1), 2 left (x - 1), 3 right (x + 1);
//   * walls are THIN walls between two neighbouring cells (every cell is a state); a move
//     across a wall or out of the grid leaves the agent where it is.
// `GridLayout` holds the width, the height and the set of thin walls. It is what the
// builders of grid_world.hpp turn into transition matrices, and users design their own
// maps with it:
//
//     maxent::GridLayout maze(4, 3);
//     maze.add_vertical_wall(1, 0, 1)      // between columns 1 and 2, rows 0..1
//         .add_wall({0, 2}, maxent::Move::up);
//     std::cout << maxent::render_ascii(maze);
//
// `render_ascii` draws a layout with '-' and '|' for walls (the grid border included).
#pragma once

#include <array>
#include <climits>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "maxent/core/error.hpp"

namespace maxent {

// ---------------------------------------------------------------------------------------
// Cells and moves
// ---------------------------------------------------------------------------------------

/// A grid cell: column x (0 = left) and row y (0 = top). The state label of grid worlds.
/// Equality, ordering (x, then y), std::hash and `os << c` printing "(x,y)" are provided.
struct GridCell {
    int x = 0;
    int y = 0;

    friend constexpr bool operator==(const GridCell&, const GridCell&) = default;
    friend constexpr auto operator<=>(const GridCell&, const GridCell&) = default;
};

/// Prints "(x,y)".
inline std::ostream& operator<<(std::ostream& os, const GridCell& c) {
    return os << '(' << c.x << ',' << c.y << ')';
}

/// The four moves, numbered as in the paper's code: 0 up, 1 down, 2 left, 3 right.
/// The action label of grid worlds; `os << m` prints "up", "down", "left" or "right".
enum class Move : std::uint8_t { up = 0, down = 1, left = 2, right = 3 };

/// The moves in index order (the action order of every grid world).
inline constexpr std::array<Move, 4> all_moves{Move::up, Move::down, Move::left, Move::right};

/// The action index of a move (0..3).
[[nodiscard]] constexpr std::size_t move_index(Move m) noexcept { return static_cast<std::size_t>(m); }

/// The move with action index i; throws config_error for i > 3.
[[nodiscard]] constexpr Move move_of(std::size_t i) {
    if (i >= all_moves.size())
        throw config_error(detail::message("move index ", i, " is outside [0, 4) (0 up, 1 down, 2 left, 3 right)"));
    return all_moves[i];
}

/// The move in the opposite direction.
[[nodiscard]] constexpr Move opposite(Move m) noexcept {
    switch (m) {
        case Move::up: return Move::down;
        case Move::down: return Move::up;
        case Move::left: return Move::right;
        case Move::right: return Move::left;
    }
    return m;
}

/// The neighbouring cell in direction m, ignoring borders and walls (may lie outside).
[[nodiscard]] constexpr GridCell neighbour(GridCell c, Move m) noexcept {
    switch (m) {
        case Move::up: return {c.x, c.y - 1};
        case Move::down: return {c.x, c.y + 1};
        case Move::left: return {c.x - 1, c.y};
        case Move::right: return {c.x + 1, c.y};
    }
    return c;
}

/// "up", "down", "left", "right" (or "Move(n)" for a value outside the enumeration).
inline std::ostream& operator<<(std::ostream& os, Move m) {
    switch (m) {
        case Move::up: return os << "up";
        case Move::down: return os << "down";
        case Move::left: return os << "left";
        case Move::right: return os << "right";
    }
    return os << "Move(" << static_cast<unsigned>(m) << ')';
}

/// Index x + y * width of cell (x, y). Throws config_error for width 0, x outside
/// [0, width) or y < 0 (the height is not known here; GridLayout::index checks it too).
[[nodiscard]] constexpr std::size_t cell_index(int x, int y, std::size_t width) {
    if (width == 0) throw config_error("cell_index: width must be at least 1, got 0");
    if (x < 0 || static_cast<std::size_t>(x) >= width || y < 0)
        throw config_error(detail::message("cell_index: cell (", x, ",", y, ") is outside a grid of width ", width));
    return static_cast<std::size_t>(x) + static_cast<std::size_t>(y) * width;
}
[[nodiscard]] constexpr std::size_t cell_index(GridCell c, std::size_t width) { return cell_index(c.x, c.y, width); }

/// The cell (index % width, index / width). Throws config_error for width 0 or a row that
/// does not fit in an int.
[[nodiscard]] constexpr GridCell cell_of(std::size_t index, std::size_t width) {
    if (width == 0) throw config_error("cell_of: width must be at least 1, got 0");
    if (index / width > static_cast<std::size_t>(INT_MAX))
        throw config_error(detail::message("cell_of: index ", index, " is too large for width ", width));
    return {static_cast<int>(index % width), static_cast<int>(index / width)};
}

// ---------------------------------------------------------------------------------------
// Layouts
// ---------------------------------------------------------------------------------------

/// A thin wall on side `side` of `cell` (the same wall as {neighbour(cell, side),
/// opposite(side)}).
struct Wall {
    GridCell cell;
    Move side = Move::up;

    friend constexpr bool operator==(const Wall&, const Wall&) = default;
};

inline std::ostream& operator<<(std::ostream& os, const Wall& w) { return os << w.cell << ' ' << w.side; }

/// A rectangular grid of width x height cells with thin walls between neighbouring cells.
/// Walls always block both directions. The grid border is always closed (moves out of the
/// grid leave the agent in place) and is not listed among the walls.
class GridLayout {
public:
    /// An open room (no walls). Throws model_error naming the size if the width or the
    /// height is 0, or if width * height does not fit in the library's sparse index (int).
    GridLayout(std::size_t w, std::size_t h) : width_(w), height_(h) {
        if (w == 0 || h == 0)
            throw model_error(detail::message("grid ", w, " x ", h, ": the ", w == 0 ? "width" : "height",
                                              " must be at least 1, got 0"));
        if (w > static_cast<std::size_t>(INT_MAX) / h)
            throw model_error(detail::message("grid ", w, " x ", h, " has more cells than the sparse index allows (",
                                              INT_MAX, ")"));
        blocked_.assign(w * h, 0);
    }

    /// A grid with the given thin walls (see add_wall).
    GridLayout(std::size_t w, std::size_t h, const std::vector<Wall>& walls) : GridLayout(w, h) {
        for (const Wall& wall : walls) add_wall(wall.cell, wall.side);
    }

    /// The open room of w x h cells (the single room of environment i).
    [[nodiscard]] static GridLayout single_room(std::size_t w, std::size_t h) { return GridLayout(w, h); }

    /// Four rooms of (w/2) x (h/2) cells joined by four doors on the outer ring (environments
    /// ii–iv; w = h = 6 gives the paper's map). For even w and h:
    ///   * a horizontal wall between rows h/2 - 1 and h/2 for columns 1 .. w-2
    ///     (doors at x = 0 and x = w-1);
    ///   * a vertical wall between columns w/2 - 1 and w/2 for rows 1 .. h-2
    ///     (doors at y = 0 and y = h-1).
    /// For 6 x 6: rows 2|3 for x = 1..4 and columns 2|3 for y = 1..4, as in docs/reference.md.
    /// (2 x 2 has no walls at all.) Throws model_error naming the size if w or h is odd or 0.
    [[nodiscard]] static GridLayout four_rooms(std::size_t w, std::size_t h) {
        if (w % 2 != 0 || h % 2 != 0 || w == 0 || h == 0)
            throw model_error(detail::message("four rooms needs an even, positive width and height, got ", w, " x ",
                                              h));
        GridLayout g(w, h);
        const int W = static_cast<int>(w), H = static_cast<int>(h);
        if (W > 2) g.add_horizontal_wall(H / 2 - 1, 1, W - 2);
        if (H > 2) g.add_vertical_wall(W / 2 - 1, 1, H - 2);
        return g;
    }

    [[nodiscard]] std::size_t width() const noexcept { return width_; }
    [[nodiscard]] std::size_t height() const noexcept { return height_; }
    [[nodiscard]] std::size_t num_cells() const noexcept { return width_ * height_; }

    [[nodiscard]] bool contains(GridCell c) const noexcept {
        return c.x >= 0 && c.y >= 0 && static_cast<std::size_t>(c.x) < width_ &&
               static_cast<std::size_t>(c.y) < height_;
    }

    /// x + y * width; throws config_error naming the cell if it lies outside the grid.
    [[nodiscard]] std::size_t index(GridCell c) const {
        check_cell(c, "GridLayout::index");
        return static_cast<std::size_t>(c.x) + static_cast<std::size_t>(c.y) * width_;
    }

    /// The cell with index i; throws config_error if i >= num_cells().
    [[nodiscard]] GridCell cell(std::size_t i) const {
        if (i >= num_cells())
            throw config_error(detail::message("GridLayout::cell: index ", i, " is outside [0, ", num_cells(), ")"));
        return {static_cast<int>(i % width_), static_cast<int>(i / width_)};
    }

    /// Adds the thin wall on side `side` of cell c (blocking both directions; adding it
    /// twice is harmless). Throws model_error naming the wall if c lies outside the grid or
    /// the wall would lie on the border (which is always closed).
    GridLayout& add_wall(GridCell c, Move side) {
        if (move_index(side) >= all_moves.size())
            throw model_error(detail::message("wall at cell ", c, ": side ", side, " is not a move"));
        if (!contains(c))
            throw model_error(detail::message("wall ", Wall{c, side}, ": cell ", c, " is outside the ", width_,
                                              " x ", height_, " grid"));
        const GridCell other = neighbour(c, side);
        if (!contains(other))
            throw model_error(detail::message("wall ", Wall{c, side}, " lies on the border of the ", width_, " x ",
                                              height_, " grid (the border is always closed)"));
        blocked_[index(c)] = static_cast<std::uint8_t>(blocked_[index(c)] | bit(side));
        blocked_[index(other)] = static_cast<std::uint8_t>(blocked_[index(other)] | bit(opposite(side)));
        return *this;
    }

    /// A horizontal wall between rows y_above and y_above + 1, for columns x_first..x_last
    /// (inclusive).
    GridLayout& add_horizontal_wall(int y_above, int x_first, int x_last) {
        if (x_first > x_last)
            throw model_error(detail::message("horizontal wall below row ", y_above, ": column range ", x_first,
                                              "..", x_last, " is empty"));
        for (int x = x_first; x <= x_last; ++x) add_wall({x, y_above}, Move::down);
        return *this;
    }

    /// A vertical wall between columns x_left and x_left + 1, for rows y_first..y_last
    /// (inclusive).
    GridLayout& add_vertical_wall(int x_left, int y_first, int y_last) {
        if (y_first > y_last)
            throw model_error(detail::message("vertical wall right of column ", x_left, ": row range ", y_first,
                                              "..", y_last, " is empty"));
        for (int y = y_first; y <= y_last; ++y) add_wall({x_left, y}, Move::right);
        return *this;
    }

    /// Is there a thin wall on side `side` of cell c? (False for the border.)
    [[nodiscard]] bool has_wall(GridCell c, Move side) const {
        check_cell(c, "GridLayout::has_wall");
        return (blocked_[index(c)] & bit(side)) != 0;
    }

    /// Is move m from cell c blocked, by a thin wall or by the border?
    [[nodiscard]] bool blocked(GridCell c, Move m) const { return has_wall(c, m) || !contains(neighbour(c, m)); }

    /// Where move m from cell c leads: the neighbour, or c itself if the move is blocked.
    [[nodiscard]] GridCell destination(GridCell c, Move m) const { return blocked(c, m) ? c : neighbour(c, m); }

    /// Index form of destination().
    [[nodiscard]] std::size_t destination(std::size_t i, Move m) const { return index(destination(cell(i), m)); }

    /// Every thin wall once, as {cell, down} or {cell, right}, in cell-index order.
    [[nodiscard]] std::vector<Wall> walls() const {
        std::vector<Wall> out;
        for (std::size_t i = 0; i < blocked_.size(); ++i) {
            if (blocked_[i] & bit(Move::down)) out.push_back({cell(i), Move::down});
            if (blocked_[i] & bit(Move::right)) out.push_back({cell(i), Move::right});
        }
        return out;
    }

    friend bool operator==(const GridLayout&, const GridLayout&) = default;

private:
    static constexpr std::uint8_t bit(Move m) noexcept { return static_cast<std::uint8_t>(1u << move_index(m)); }

    void check_cell(GridCell c, const char* where) const {
        if (!contains(c))
            throw config_error(detail::message(where, ": cell ", c, " is outside the ", width_, " x ", height_,
                                               " grid"));
    }

    std::size_t width_;
    std::size_t height_;
    std::vector<std::uint8_t> blocked_;  ///< per cell, bit m set when a thin wall blocks move m
};

/// Draws the layout: one character per cell (given by `mark`, '.' by default), '|' and '-'
/// for walls and the border, and at each corner '+' where horizontal and vertical walls
/// meet, '-' or '|' where only one kind passes, ' ' where none. The 6 x 6 four rooms:
///
///     +-----------+
///     |. . . . . .|
///     |     |     |
///     |. . .|. . .|
///     |     |     |
///     |. . .|. . .|
///     | ----+---- |
///     |. . .|. . .|
///     |     |     |
///     |. . .|. . .|
///     |     |     |
///     |. . . . . .|
///     +-----------+
///
/// Lines end with '\n'.
[[nodiscard]] inline std::string render_ascii(const GridLayout& g, const std::function<char(GridCell)>& mark) {
    const int W = static_cast<int>(g.width()), H = static_cast<int>(g.height());
    // Horizontal segment above row y (0..H) at column x; vertical segment left of column x
    // (0..W) at row y. Border segments count as walls.
    auto hseg = [&](int x, int y) {
        if (x < 0 || x >= W) return false;
        if (y == 0 || y == H) return true;
        return g.has_wall({x, y}, Move::up);
    };
    auto vseg = [&](int x, int y) {
        if (y < 0 || y >= H) return false;
        if (x == 0 || x == W) return true;
        return g.has_wall({x, y}, Move::left);
    };
    auto corner = [&](int x, int y) {  // corner at the top-left of cell (x, y)
        const bool h = hseg(x - 1, y) || hseg(x, y);
        const bool v = vseg(x, y - 1) || vseg(x, y);
        return h && v ? '+' : h ? '-' : v ? '|' : ' ';
    };
    std::string out;
    out.reserve(static_cast<std::size_t>((2 * W + 2) * (2 * H + 1)));
    for (int y = 0; y <= H; ++y) {
        for (int x = 0; x <= W; ++x) {
            out += corner(x, y);
            if (x < W) out += hseg(x, y) ? '-' : ' ';
        }
        out += '\n';
        if (y == H) break;
        for (int x = 0; x <= W; ++x) {
            out += vseg(x, y) ? '|' : ' ';
            if (x < W) out += mark({x, y});
        }
        out += '\n';
    }
    return out;
}

[[nodiscard]] inline std::string render_ascii(const GridLayout& g) {
    return render_ascii(g, [](GridCell) { return '.'; });
}

}  // namespace maxent

/// Hash of a grid cell (so LabelSet indexes grid states through an unordered_map).
template <>
struct std::hash<maxent::GridCell> {
    std::size_t operator()(const maxent::GridCell& c) const noexcept {
        const std::uint64_t v = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(c.x)) << 32) |
                                static_cast<std::uint64_t>(static_cast<std::uint32_t>(c.y));
        return std::hash<std::uint64_t>{}(v);
    }
};
