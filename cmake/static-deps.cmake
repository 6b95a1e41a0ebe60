# static-deps.cmake - which build of each third-party library corpus-gw
# links: Debian's static archive (lib*.a, shipped in the -dev package the
# build already needs) or the shared library.  Included by the top
# CMakeLists.txt after the pkg_check_modules/find_library lines; sets
# CG_DEP_<NAME> for each library, which the layers link.
#
# Why (BENCHMARKS.md "Fetch that scales"): every command pays the dynamic
# loader for every shared library the binary names, before main: 46
# libraries and about 12,500 symbol relocations, nearly all of the 20-odd
# ms a `corpus-gw --version` costs against 4 for /bin/true, and most of a
# no-change `fetch`.  libcurl's own closure (OpenSSL, GnuTLS through
# librtmp, Kerberos, LDAP, libssh2, nghttp2, ...) cannot be linked
# statically (Debian ships no archive of several of its members) and is
# most of that cost; the libraries outside it can: SQLite, nng,
# libgit2 (with mbed TLS and http-parser), libmicrohttpd, PCRE2,
# utf8proc, Snowball, libyaml and jansson.  Linked from their archives,
# their relocations are resolved at link time and they add no object to
# the loader's search scope.  libmd4c ships no archive and stays shared;
# libcrypto stays shared (libcurl's OpenSSL needs the shared one anyway).
#
# The price: a security update of one of these libraries reaches corpus-gw
# only by a rebuild (a Debian package would be binNMU'd), and the package's
# Depends (dpkg-shlibdeps) no longer name them, so tests/integration/
# test_package.sh must expect that before this is turned on by default.
# Off by default for now (every library shared, as before, with the same
# link lines); -DCG_STATIC_DEPS=ON links the archives and --as-needed.  An
# archive that is not installed falls back to the shared library, so the
# build never needs more than the -dev packages scripts/install-deps
# installs.
#
# Must not: change what is linked beyond the choice of archive or shared
# object (the same libraries, the same versions), or link libc statically.
option(CG_STATIC_DEPS
  "Link Debian's static archives of the libraries outside libcurl's closure (faster process start)"
  OFF)

# The archives libgit2's and nng's archives need (mbed TLS, http-parser).
if(CG_STATIC_DEPS)
  foreach(a mbedtls mbedx509 mbedcrypto http_parser)
    find_library(CG_${a}_A NAMES lib${a}.a)
  endforeach()
endif()

# cg_dep(NAME SHARED ARCHIVE [NEEDS...]): CG_DEP_<NAME> becomes ARCHIVE's
# path followed by NEEDS (what the archive's objects call) when
# CG_STATIC_DEPS is on and ARCHIVE and every archive in NEEDS (a *_A
# variable that is set) are installed; else SHARED.  The include
# directories and compile flags always come from SHARED when it is a
# pkg-config target.
function(cg_dep name shared archive)
  set(use ${shared})
  if(CG_STATIC_DEPS)
    find_library(CG_${name}_A NAMES ${archive})
    set(ok ${CG_${name}_A})
    foreach(need ${ARGN})
      if(need MATCHES "-NOTFOUND$")
        set(ok "")
      endif()
    endforeach()
    if(ok)
      add_library(cg_dep_${name} INTERFACE)
      if(TARGET ${shared})
        target_include_directories(cg_dep_${name} INTERFACE
          $<TARGET_PROPERTY:${shared},INTERFACE_INCLUDE_DIRECTORIES>)
        target_compile_options(cg_dep_${name} INTERFACE
          $<TARGET_PROPERTY:${shared},INTERFACE_COMPILE_OPTIONS>)
      endif()
      target_link_libraries(cg_dep_${name} INTERFACE ${CG_${name}_A} ${ARGN})
      set(use cg_dep_${name})
    endif()
  endif()
  set(CG_DEP_${name} ${use} PARENT_SCOPE)
endfunction()

set(CG_MBED_A ${CG_mbedtls_A} ${CG_mbedx509_A} ${CG_mbedcrypto_A})
cg_dep(PCRE2 PkgConfig::PCRE2 libpcre2-8.a)
cg_dep(SQLITE PkgConfig::SQLITE libsqlite3.a m Threads::Threads ${CMAKE_DL_LIBS})
cg_dep(NNG ${NNG_LIB} libnng.a ${CG_MBED_A} Threads::Threads)
# libgit2's archive calls libssh2, zlib and GSSAPI, all in libcurl's
# closure, so they add no library to the process.
find_library(CG_GSSAPI_LIB NAMES gssapi_krb5 libgssapi_krb5.so.2)
cg_dep(GIT2 PkgConfig::GIT2 libgit2.a ${CG_MBED_A} ${CG_http_parser_A}
  ${CG_DEP_PCRE2} ssh2 z rt ${CG_GSSAPI_LIB} Threads::Threads)
# libmicrohttpd's archive calls GnuTLS, also in libcurl's closure.
cg_dep(MHD PkgConfig::MHD libmicrohttpd.a gnutls Threads::Threads)
cg_dep(UTF8PROC PkgConfig::UTF8PROC libutf8proc.a)
cg_dep(STEMMER ${STEMMER_LIB} libstemmer.a)
cg_dep(YAML PkgConfig::YAML libyaml.a)
cg_dep(JANSSON PkgConfig::JANSSON libjansson.a)
