# Every config in configs/ validates and runs (issue 5). Included from testbench/CMakeLists.txt.
# Hardware files run synthetic traffic; small meshes fully (warm-up, measure, drain), files marked
# "# test: bounded" (large meshes) for a bounded number of cycles (a short window at a low rate). Scenario
# files run as `wsc run` (their own workload and phases).
file(GLOB WSC_CONFIG_FILES ${PROJECT_SOURCE_DIR}/configs/*.yaml)
foreach(cfg ${WSC_CONFIG_FILES})
  get_filename_component(cfg_name ${cfg} NAME_WE)
  add_test(NAME "configs: ${cfg_name} validates" COMMAND wsc validate ${cfg})
  file(STRINGS ${cfg} cfg_scenario REGEX "^scenario:")
  file(STRINGS ${cfg} cfg_big REGEX "^# test: bounded")
  if(cfg_scenario)
    add_test(NAME "configs: ${cfg_name} runs" COMMAND wsc run ${cfg})
  elseif(cfg_big)
    add_test(NAME "configs: ${cfg_name} runs (bounded)" COMMAND wsc traffic ${cfg}
             --rate 0.0005 --warmup 0 --measure 100 --drain 1000)
  else()
    add_test(NAME "configs: ${cfg_name} runs" COMMAND wsc traffic ${cfg}
             --rate 0.02 --warmup 200 --measure 1000 --drain 20000)
  endif()
endforeach()

# Every model in configs/models/ loads and expands (docs/MODELS.md): `wsc validate` prints its
# one-line summary (parameters, active parameters, layers).
file(GLOB WSC_MODEL_FILES ${PROJECT_SOURCE_DIR}/configs/models/*.json)
foreach(model ${WSC_MODEL_FILES})
  get_filename_component(model_name ${model} NAME_WLE)
  add_test(NAME "configs: models/${model_name} validates" COMMAND wsc validate ${model})
  set_tests_properties("configs: models/${model_name} validates" PROPERTIES
                       PASS_REGULAR_EXPRESSION ": ok \\(model ${model_name} \\(.*params")
endforeach()
