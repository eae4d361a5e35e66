// `dims<M, K>`: the ordered symbolic shape of a tensor, and the compile-time set algebra the
// ops use to check shapes before a kernel ever runs.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "wave/symbol.hpp"

namespace wave {

template <auto... Symbols>
struct dims {
  static_assert((is_symbol_v<std::remove_cv_t<decltype(Symbols)>> && ...),
                "dims<...> takes symbols declared with WAVE_SYMBOL");
  static constexpr std::size_t rank = sizeof...(Symbols);
  static constexpr std::array<std::string_view, rank> names{decltype(Symbols)::name...};
};

template <class T>
inline constexpr bool is_dims_v = false;
template <auto... S>
inline constexpr bool is_dims_v<dims<S...>> = true;

template <class T>
concept Dims = is_dims_v<T>;

// Runtime list of names, in order.
template <Dims D>
std::vector<std::string> dim_names() {
  return std::vector<std::string>(D::names.begin(), D::names.end());
}

namespace detail {

template <std::size_t N>
constexpr bool contains(const std::array<std::string_view, N>& a, std::string_view s) {
  return std::find(a.begin(), a.end(), s) != a.end();
}

template <std::size_t N, std::size_t M>
constexpr bool subset(const std::array<std::string_view, N>& a,
                      const std::array<std::string_view, M>& b) {
  return std::all_of(a.begin(), a.end(), [&](std::string_view s) { return contains(b, s); });
}

template <std::size_t N>
constexpr bool unique(const std::array<std::string_view, N>& a) {
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = i + 1; j < N; ++j)
      if (a[i] == a[j]) return false;
  return true;
}

template <class Tuple>
struct dims_of_tuple;
template <class... S>
struct dims_of_tuple<std::tuple<S...>> {
  using type = dims<S{}...>;
};

// dims<...> without the dim named `Name`, order kept.
template <Dims D, class Sym>
struct remove_dim;
template <auto... S, class Sym>
struct remove_dim<dims<S...>, Sym> {
  using type = typename dims_of_tuple<decltype(std::tuple_cat(
      std::conditional_t<std::is_same_v<std::remove_cv_t<decltype(S)>, Sym>, std::tuple<>,
                         std::tuple<std::remove_cv_t<decltype(S)>>>{}...))>::type;
};

// dims<...> with the dim `From` replaced by `To`, in its place.
template <Dims D, class From, class To>
struct replace_dim;
template <auto... S, class From, class To>
struct replace_dim<dims<S...>, From, To> {
  using type = dims<std::conditional_t<std::is_same_v<std::remove_cv_t<decltype(S)>, From>, To,
                                       std::remove_cv_t<decltype(S)>>{}...>;
};

}  // namespace detail

// Same set of names, in any order.
template <Dims A, Dims B>
inline constexpr bool same_dim_set_v =
    A::rank == B::rank && detail::subset(A::names, B::names) && detail::subset(B::names, A::names);

template <Dims A, Dims B>
inline constexpr bool dims_subset_v = detail::subset(A::names, B::names);

template <Dims D, SymbolType S>
inline constexpr bool has_dim_v = detail::contains(D::names, S::name);

template <Dims D, SymbolType S>
using remove_dim_t = typename detail::remove_dim<D, S>::type;

template <Dims D, SymbolType From, SymbolType To>
using replace_dim_t = typename detail::replace_dim<D, From, To>::type;

}  // namespace wave
