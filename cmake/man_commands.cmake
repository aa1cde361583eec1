# Writes a help2man include file with a COMMANDS section: each subcommand's own --help, so that the
# man page holds every option, not only the top-level ones.
# cmake -DGAUNTLET=<binary> -DOUTPUT=<file.h2m> -P man_commands.cmake
set(commands list probe doctor run conform stress model decode report "report show" "report diff"
             "report merge")
set(text "[COMMANDS]\n")
foreach(command ${commands})
  separate_arguments(args UNIX_COMMAND "${command}")
  execute_process(COMMAND "${GAUNTLET}" ${args} --help OUTPUT_VARIABLE help RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "gauntlet ${command} --help exited ${result}")
  endif()
  string(REPLACE "${GAUNTLET}" "gauntlet" help "${help}")
  string(REPLACE "\\" "\\e" help "${help}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")
  string(APPEND text ".SS \"gauntlet ${command}\"\n.nf\n${help}.fi\n")
endforeach()
file(WRITE "${OUTPUT}" "${text}")
